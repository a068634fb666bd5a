package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The store's deadlines on SQLite (one node; its single writer serializes sweeps). */
class SqliteDeadlinesInStoreTest extends DeadlinesInStoreContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

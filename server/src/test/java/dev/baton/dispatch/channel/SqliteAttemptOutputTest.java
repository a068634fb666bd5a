package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** Where output is kept, on the embedded SQLite store. */
class SqliteAttemptOutputTest extends AttemptOutputContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

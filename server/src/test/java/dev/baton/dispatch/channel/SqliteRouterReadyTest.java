package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The router's additions to the channel on the embedded SQLite store. */
class SqliteRouterReadyTest extends RouterReadyContractTest {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

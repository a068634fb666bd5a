package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The quarantine scenarios on the embedded SQLite store. */
class SqliteQuarantineTest extends QuarantineContractTest {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

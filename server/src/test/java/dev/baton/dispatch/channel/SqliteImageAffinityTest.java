package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The image affinity scenarios on the embedded SQLite store. */
class SqliteImageAffinityTest extends ImageAffinityContractTest {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

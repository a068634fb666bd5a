package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The label routing scenarios on the embedded SQLite store. */
class SqliteLabelRoutingTest extends LabelRoutingContractTest {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

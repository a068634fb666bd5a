package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The single-job runner scenarios on the embedded SQLite store. */
class SqliteSingleJobRunnerTest extends SingleJobRunnerContractTest {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

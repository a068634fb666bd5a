package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The waiting-job scenarios on the embedded SQLite store. */
class SqliteWaitingJobsTest extends WaitingJobsContractTest {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

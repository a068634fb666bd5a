package dev.baton.dispatch.channel;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The waiting-job scenarios on PostgreSQL; skipped, saying so, when none is reachable. */
@Tag("postgres")
class PostgresWaitingJobsTest extends WaitingJobsContractTest {
    @BeforeAll
    static void requirePostgres() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL
                        + ": skipping the PostgreSQL waiting-job tests");
    }

    @Override
    String databaseUrl(Path dataDir) {
        return TestDatabases.freshPostgresSchema();
    }
}

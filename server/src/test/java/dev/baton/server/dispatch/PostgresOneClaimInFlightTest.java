package dev.baton.server.dispatch;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;

/** One claim per spec set in flight, on PostgreSQL; skipped, saying so, when none is reachable. */
class PostgresOneClaimInFlightTest extends OneClaimInFlightContract {
    @BeforeAll
    static void requirePostgres() {
        assumeTrue(TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping the PostgreSQL one-claim-in-flight tests");
    }

    @Override
    String databaseUrl(Path dataDir) {
        return TestDatabases.freshPostgresSchema();
    }
}

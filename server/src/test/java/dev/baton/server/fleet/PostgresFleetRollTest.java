package dev.baton.server.fleet;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The fleet roll on PostgreSQL; skipped, saying so, when none is reachable. */
@Tag("postgres")
class PostgresFleetRollTest extends FleetRollContract {
    @BeforeAll
    static void requirePostgres() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL
                        + ": skipping the PostgreSQL fleet roll tests");
    }

    @Override
    String databaseUrl() {
        return TestDatabases.freshPostgresSchema();
    }
}

package dev.baton.api;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** Stored change points through the API on PostgreSQL, a fresh schema per test; skipped, saying so, when none is reachable. */
@Tag("postgres")
class PostgresChangePointApiTest extends ChangePointApiContract {
    @BeforeAll
    static void requirePostgres() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
    }

    @Override
    String databaseUrl() {
        return TestDatabases.freshPostgresSchema();
    }
}

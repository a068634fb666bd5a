package dev.baton.api;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** Triage and alert groups on PostgreSQL, a fresh schema per test; skipped, saying so, when none is reachable. */
@Tag("postgres")
class PostgresAlertTriageTest extends AlertTriageContract {
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

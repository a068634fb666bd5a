package dev.baton.runner.integration;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The Java runner on the NATS transport against a server on PostgreSQL; skipped, saying so, when none is reachable. */
@Tag("postgres")
class PostgresLeaseRunnerTest extends LeaseRunnerContract {
    @BeforeAll
    static void requirePostgres() {
        assumeTrue(PostgresSchemas.reachable(), "PostgreSQL not reachable at " + PostgresSchemas.URL);
    }

    @Override
    String databaseUrl() {
        return PostgresSchemas.fresh();
    }
}

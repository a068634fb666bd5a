package dev.baton.runner.integration;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** Runners' noise end to end on PostgreSQL; skipped, saying so, when none is reachable. */
@Tag("postgres")
class PostgresNoiseAgainstServerTest extends NoiseAgainstServerContract {
    @BeforeAll
    static void requirePostgres() {
        assumeTrue(
                PostgresSchemas.reachable(),
                "PostgreSQL not reachable at " + PostgresSchemas.URL
                        + ": skipping the PostgreSQL noise end-to-end tests");
    }

    @Override
    String databaseUrl() {
        return PostgresSchemas.fresh();
    }
}

package dev.baton.alerts;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** {@link CodeHostTest} on PostgreSQL: the outbox, the sticky comment's hold and the V36 schema there. */
@Tag("postgres")
class PostgresCodeHostTest extends CodeHostTest {
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

package dev.baton.web.auth;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** Access on PostgreSQL, each test in a fresh schema; skipped, saying so, when none is reachable. */
@Tag("postgres")
class PostgresAccessTest extends AccessContract {
    @BeforeAll
    static void requirePostgres() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping the PostgreSQL access tests");
    }

    @Override
    String databaseUrl(Path dataDir) {
        return TestDatabases.freshPostgresSchema();
    }
}

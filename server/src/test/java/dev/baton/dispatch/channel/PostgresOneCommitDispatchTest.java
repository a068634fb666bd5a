package dev.baton.dispatch.channel;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** Dispatch in one commit on PostgreSQL; skipped, saying so, when none is reachable. */
@Tag("postgres")
class PostgresOneCommitDispatchTest extends OneCommitDispatchContract {
    @BeforeAll
    static void requirePostgres() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL
                        + ": skipping the one-commit dispatch tests");
    }

    @Override
    String databaseUrl(Path dataDir) {
        return TestDatabases.freshPostgresSchema();
    }
}

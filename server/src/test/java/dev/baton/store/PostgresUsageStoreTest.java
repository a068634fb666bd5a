package dev.baton.store;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/** Usage per period on PostgreSQL, a fresh schema per test; skipped, saying so, when none is reachable. */
@Tag("postgres")
class PostgresUsageStoreTest extends UsageStoreContract {
    @TempDir
    Path dataDir;

    @BeforeAll
    static void requirePostgres() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
    }

    @Override
    Store openStore() {
        return StoreFactory.open(TestDatabases.freshPostgresSchema(), dataDir);
    }
}

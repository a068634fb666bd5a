package dev.baton.alerts;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/** Judging on PostgreSQL, a fresh schema per test; skipped, saying so, when none is reachable. */
@Tag("postgres")
class PostgresJudgeTest extends JudgeContract {
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

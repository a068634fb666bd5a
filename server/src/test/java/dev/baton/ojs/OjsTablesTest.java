package dev.baton.ojs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.testing.TestDatabases;
import dev.baton.store.OjsRow;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The conformance harness's reset ({@link OjsTables}) empties every table the OJS migrations create, on both dialects. */
@Tag("postgres")
class OjsTablesTest {
    @TempDir
    Path dataDir;

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void theResetCoversEveryTableTheOjsMigrationsCreate(String dialect) throws Exception {
        String url = null;
        if (dialect.equals("postgresql")) {
            assumeTrue(
                    TestDatabases.postgresReachable(),
                    "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
            url = TestDatabases.freshPostgresSchema();
        }
        String jdbc = url != null ? "jdbc:" + url : "jdbc:sqlite:" + dataDir.resolve("baton.db");
        Instant now = Instant.parse("2026-05-01T00:00:00Z");
        try (Store store = StoreFactory.open(url, dataDir);
                Connection c = DriverManager.getConnection(jdbc)) {
            assertThat(OjsTables.created(dialect))
                    .as("the OJS migrations create tables")
                    .contains("ojs_job", "ojs_workflow");
            assertThat(OjsTables.in(c))
                    .as("every table the OJS migrations create, and no other ojs_ table")
                    .isEqualTo(OjsTables.created(dialect));
            store.ojs().insertJob(OjsRow.fresh("a", "q", "available", 0, null, "{}"), now);
            store.ojs().setQueuePaused("q", true);
            OjsTables.empty(c);
            assertThat(store.ojs().findJob("a")).isEmpty();
            assertThat(store.ojs().pausedQueues()).isEmpty();
        }
    }
}

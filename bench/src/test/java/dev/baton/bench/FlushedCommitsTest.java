package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The PostgreSQL counters behind "flushed commits per job", read from the local PostgreSQL (a whole-cluster counter: only deltas are checked). */
class FlushedCommitsTest {
    private static final String PG =
            System.getenv().getOrDefault("BATON_BENCH_PG_URL", "postgresql://127.0.0.1:5432/test");

    @Test
    void commitsOnPostgresqlMoveTheWalFlushAndCommitCounters() throws Exception {
        try (BenchDatabase database = new BenchDatabase(BenchDatabase.Kind.POSTGRESQL, PG, "postgres")) {
            String url = database.freshUrl();
            FlushedCommits.Counters before = FlushedCommits.read(database);
            try (Connection c = DriverManager.getConnection("jdbc:" + url);
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE probe (n int)");
                for (int i = 0; i < 20; i++) s.execute("INSERT INTO probe VALUES (" + i + ")");
            } // the backend publishes its counters as it exits
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            FlushedCommits.Result r;
            do {
                Thread.sleep(100);
                r = FlushedCommits.between(before, FlushedCommits.read(database), 20);
            } while ((r.walSyncs() == 0 || r.commits() < 21) && System.nanoTime() < deadline);
            assertThat(r.walSyncs())
                    .as("every commit waits for a WAL flush (synchronous_commit=on)")
                    .isPositive();
            assertThat(r.commits()).isGreaterThanOrEqualTo(21);
            assertThat(r.scope()).contains("whole");
        }
    }
}

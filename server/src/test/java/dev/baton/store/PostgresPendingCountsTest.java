package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.TestDatabases;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's kept pending counts (V42, decision 0070): one row per connection, summed by the
 * queue status, and the rows of ended connections folded into backend 0. The store contract
 * (PostgresStoreTest) holds the queue status's answers; this holds the counts themselves under
 * concurrent writers on two stores (two nodes) and the fold.
 */
@Tag("postgres")
class PostgresPendingCountsTest {
    private static final Instant NOW = Instant.parse("2026-03-01T00:00:00Z");

    @TempDir
    Path dir;

    private String url;

    @BeforeEach
    void database() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
        url = TestDatabases.freshPostgresSchema();
    }

    @Test
    void countsKeptByConcurrentWritersOnTwoNodesSumToThePendingJobs() throws Exception {
        try (JdbcStore one = (JdbcStore) StoreFactory.open(url, dir.resolve("one"));
                JdbcStore two = (JdbcStore) StoreFactory.open(url, dir.resolve("two"))) {
            Organization org = one.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, NOW);
            Project project = one.organizations().createProject(org.id(), "P", new Slug("p"), NOW);
            Spec spec = one.specs().createSpec("S", new Slug("s"), Architecture.X86_64, 1, 1, 1, false, NOW);
            Runner runner = one.runners()
                    .createRunner("R", new Slug("r"), RunnerKey.generate().hash(), NOW);
            one.specs().addRunnerSpec(runner.id(), spec.id());

            // Eight threads on two stores submit 200 jobs at two priorities and claim 72 times,
            // every write in a transaction of its own, many at once.
            AtomicInteger claimed = new AtomicInteger();
            ExecutorService writers = Executors.newFixedThreadPool(8);
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                JdbcStore store = t % 2 == 0 ? one : two;
                int thread = t;
                work.add(writers.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        submit(store, project, org, spec, i % 2 == 0 ? 200 : 300, NOW.plusMillis(thread * 100L + i));
                        if (i % 10 < 3
                                && TestClaims.claim(store, runner.id(), LeaseId.random(), NOW)
                                        .isPresent()) claimed.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : work) f.get(2, TimeUnit.MINUTES);
            writers.shutdown();

            List<long[]> counted = one.jdbi.withHandle(h -> h.createQuery(
                            "SELECT p.priority, COALESCE(SUM(pc.n), 0), (SELECT COUNT(*) FROM job j WHERE j.status = 0 AND j.priority = p.priority)"
                                    + " FROM (VALUES (200), (300)) p(priority) LEFT JOIN pending_count pc ON pc.priority = p.priority"
                                    + " GROUP BY p.priority ORDER BY p.priority")
                    .map((rs, ctx) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)})
                    .list());
            assertThat(counted).hasSize(2);
            for (long[] row : counted)
                assertThat(row[1]).as("kept count at priority " + row[0]).isEqualTo(row[2]);
            long pending = 200 - claimed.get();
            assertThat(counted.get(0)[2] + counted.get(1)[2])
                    .as("pending after the claims")
                    .isEqualTo(pending);
            long backends = one.jdbi.withHandle(h -> h.createQuery("SELECT COUNT(DISTINCT backend) FROM pending_count")
                    .mapTo(Long.class)
                    .one());
            assertThat(backends).as("rows of several connections").isGreaterThan(1);

            // The newest job's queue status: every other pending job is ahead of it (priority 300 first).
            Job last = submit(one, project, org, spec, 200, NOW.plusSeconds(60));
            assertThat(one.runs().pendingFacts(last, 20).ahead()).isEqualTo(pending);
        }
    }

    @Test
    void theFoldMovesEndedConnectionsRowsAndSkipsOnesHeldNow() throws Exception {
        try (JdbcStore store = (JdbcStore) StoreFactory.open(url, dir)) {
            Organization org = store.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, NOW);
            Project project = store.organizations().createProject(org.id(), "P", new Slug("p"), NOW);
            Spec spec = store.specs().createSpec("S", new Slug("s"), Architecture.X86_64, 1, 1, 1, false, NOW);
            store.specs()
                    .addRunnerSpec(
                            store.runners()
                                    .createRunner(
                                            "R",
                                            new Slug("r"),
                                            RunnerKey.generate().hash(),
                                            NOW)
                                    .id(),
                            spec.id());
            for (int i = 0; i < 6; i++) submit(store, project, org, spec, 200, NOW.plusMillis(i));
            // Rows as ended connections leave them (no backend has these numbers), moving the
            // count between them without changing its sum: +4 and -4.
            long specId = spec.id();
            store.jdbi.useHandle(h -> h.execute(
                    "INSERT INTO pending_count (spec_id, priority, backend, n) VALUES (?, 200, 2147483000, 4), (?, 200, 2147483001, -4), (?, 200, 2147483002, 0)",
                    specId,
                    specId,
                    specId));
            assertThat(sum(store, spec)).isEqualTo(6);

            try (Connection holder = DriverManager.getConnection("jdbc:" + url)) {
                holder.setAutoCommit(false);
                try (Statement st = holder.createStatement()) {
                    st.execute("SELECT n FROM pending_count WHERE backend = 2147483002 FOR UPDATE");
                }
                // The fold does not wait for the held row: it folds the others and leaves it.
                assertThat(store.foldPendingCounts()).isEqualTo(1);
                assertThat(backends(store))
                        .doesNotContain(2147483000L, 2147483001L)
                        .contains(2147483002L, 0L);
                holder.commit();
            }
            assertThat(store.foldPendingCounts()).isEqualTo(1);
            assertThat(backends(store)).doesNotContain(2147483002L);
            assertThat(sum(store, spec))
                    .as("the fold moves counts, never drops them")
                    .isEqualTo(6);
            Job last = submit(store, project, org, spec, 200, NOW.plusSeconds(1));
            assertThat(store.runs().pendingFacts(last, 20).ahead()).isEqualTo(6);
        }
    }

    private static long sum(JdbcStore store, Spec spec) {
        return store.jdbi.withHandle(
                h -> h.createQuery("SELECT COALESCE(SUM(n), 0) FROM pending_count WHERE spec_id = :s")
                        .bind("s", spec.id())
                        .mapTo(Long.class)
                        .one());
    }

    private static List<Long> backends(JdbcStore store) {
        return store.jdbi.withHandle(h -> h.createQuery("SELECT backend FROM pending_count")
                .mapTo(Long.class)
                .list());
    }

    private static Job submit(JdbcStore store, Project project, Organization org, Spec spec, int priority, Instant at) {
        return store.runs()
                .createRun(
                        new NewReport(project.id(), "b", "t", "json", null, null, null),
                        new NewJob(
                                spec.id(), "10.0.0.1", StoreContract.config(project), 60, priority, RetryPolicy.NONE),
                        org.id(),
                        at)
                .job();
    }
}

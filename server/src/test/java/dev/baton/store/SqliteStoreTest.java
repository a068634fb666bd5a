package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on a real SQLite file (the embedded default: {@code baton.db} in the data directory). */
class SqliteStoreTest extends StoreContract {
    @TempDir
    Path dataDir;

    @Override
    protected Store openStore() {
        return StoreFactory.open(null, dataDir);
    }

    @Test
    void claimWalksThePendingIndex() {
        List<String> plan = ((JdbcStore) store)
                .jdbi.withHandle(h -> h.createQuery("EXPLAIN QUERY PLAN " + SqliteDialect.CLAIM_QUERY)
                        .bind("runner", 1)
                        .bind("now", 0)
                        .map((rs, ctx) -> rs.getString("detail"))
                        .list());
        assertThat(plan.get(0)).contains("SEARCH j USING INDEX index_job_pending (spec_id=?)");
    }

    /**
     * Without preferred labels among the candidates the claim walks the pending index per spec in
     * its order and stops at the first claimable job: no sort of the queue per claim (with one,
     * every claim cost in proportion to the pending jobs of its specs). Only the few per-spec
     * firsts are sorted, at the top. The probe that chooses the plain claim uses its own index.
     */
    @Test
    void claimWithoutPreferredLabelsStopsAtTheFirstCandidateOfEachSpec() {
        List<PlanStep> plain = plan(SqliteDialect.PLAIN_CLAIM_QUERY);
        PlanStep walk = plain.stream()
                .filter(step -> step.detail().contains("SEARCH j USING INDEX index_job_pending (spec_id=?)"))
                .findFirst()
                .orElseThrow();
        assertThat(walk.parent())
                .as("the walk runs per spec, inside the subquery")
                .isNotZero();
        assertThat(plain)
                .filteredOn(step -> step.detail().contains("TEMP B-TREE"))
                .allMatch(step -> step.parent() == 0);
        assertThat(plan(SqliteDialect.CLAIM_QUERY))
                .filteredOn(step -> step.parent() == 0)
                .extracting(PlanStep::detail)
                .contains("SEARCH j USING INDEX index_job_pending (spec_id=?)", "USE TEMP B-TREE FOR ORDER BY");
        assertThat(plan(ClaimSql.ANY_PENDING_PREFERRED))
                .extracting(PlanStep::detail)
                .anyMatch(d -> d.contains("index_job_pending_preferred"));
    }

    /** A submission's queue status walks pending jobs in the pending index alone, never reading their rows. */
    @Test
    void theJobsAheadAreCountedFromThePendingIndexAlone() {
        assertThat(plan(JdbcPendingFacts.PENDING_FACTS_FROM_COUNTS))
                .extracting(PlanStep::detail)
                .filteredOn(d -> d.startsWith("SEARCH o ") && d.contains("index_job_pending"))
                .hasSize(1)
                .allMatch(d -> d.contains("USING COVERING INDEX index_job_pending"));
        assertThat(plan(JdbcPendingFacts.AHEAD_WALKED))
                .extracting(PlanStep::detail)
                .filteredOn(d -> d.startsWith("SEARCH o ") && d.contains("index_job_pending"))
                .hasSize(2)
                .allMatch(d -> d.contains("USING COVERING INDEX index_job_pending"));
    }

    /**
     * SQLite's queue status reads the kept pending counts by their key and walks only the jobs at
     * or behind the job, seeking to it in the pending index (a range, not a walk from the front).
     */
    @Test
    void theJobsAheadComeFromTheKeptCountsAndAWalkOfTheJobsBehind() {
        List<String> plan = plan(JdbcPendingFacts.PENDING_FACTS_FROM_COUNTS).stream()
                .map(PlanStep::detail)
                .toList();
        assertThat(plan).anyMatch(d -> d.startsWith("SEARCH pc USING PRIMARY KEY (spec_id=? AND priority>?)"));
        assertThat(plan)
                .anyMatch(d -> d.startsWith(
                        "SEARCH o USING COVERING INDEX index_job_pending (spec_id=? AND priority=? AND created>?)"));
        assertThat(plan).noneMatch(d -> d.contains("MULTI-INDEX OR"));
        // Further from the end, only the jobs ahead are walked: two ranges, not the spec's whole queue.
        assertThat(plan(JdbcPendingFacts.AHEAD_WALKED))
                .extracting(PlanStep::detail)
                .anyMatch(
                        d -> d.startsWith("SEARCH o USING COVERING INDEX index_job_pending (spec_id=? AND priority>?)"))
                .anyMatch(d -> d.startsWith(
                        "SEARCH o USING COVERING INDEX index_job_pending (spec_id=? AND priority=? AND created<?)"));
    }

    /**
     * The queue status reads the serving runners and the recent runs once each (a derived table
     * each), and is compiled once per kept statement: SQLite compiles a statement again on every
     * use when its LIMIT is a bare parameter, which was about three quarters of its time.
     */
    @Test
    void theQueueStatusReadsEachSourceOnceAndIsNotCompiledOnEveryUse() {
        List<String> plan = plan(JdbcPendingFacts.PENDING_FACTS_FROM_COUNTS).stream()
                .map(PlanStep::detail)
                .toList();
        assertThat(plan).filteredOn(d -> d.contains("index_job_spec_finished")).hasSize(1);
        assertThat(plan)
                .filteredOn(d -> d.startsWith("SEARCH r USING INTEGER PRIMARY KEY"))
                .hasSize(1);
        assertThat(JdbcPendingFacts.PENDING_FACTS_FROM_COUNTS).doesNotContainPattern("LIMIT :\\w++(?!\\s*[-+*/])");
    }

    private record PlanStep(int parent, String detail) {}

    private List<PlanStep> plan(String query) {
        return ((JdbcStore) store).jdbi.withHandle(h -> {
            var explain = h.createQuery("EXPLAIN QUERY PLAN " + query);
            for (String name : List.of("runner", "now", "spec", "priority", "created", "id", "fresh", "n")) {
                if (java.util.regex.Pattern.compile(":" + name + "\\b")
                        .matcher(query)
                        .find()) explain.bind(name, 1);
            }
            return explain.map((rs, ctx) -> new PlanStep(rs.getInt("parent"), rs.getString("detail")))
                    .list();
        });
    }

    /**
     * Two stores on one file share no in-process lock (like two processes): only BEGIN IMMEDIATE
     * and the busy timeout keep their claims apart. A deferred transaction would fail here with
     * SQLITE_BUSY when upgrading its read to a write.
     */
    @Test
    void twoStoresOnOneFileNeverShareAJob() throws Exception {
        Instant now = Instant.parse("2026-03-01T00:00:00Z");
        Organization org = store.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, now);
        Project project = store.organizations().createProject(org.id(), "P", new Slug("p"), now);
        Spec spec = store.specs().createSpec("S", new Slug("s"), Architecture.X86_64, 1, 1, 1, false, now);
        int jobs = 40;
        for (int i = 0; i < jobs; i++) {
            store.runs()
                    .createRun(
                            new NewReport(project.id(), "b", "t", "json", null, null, null),
                            new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                            org.id(),
                            now.plusSeconds(i))
                    .job();
        }
        List<Runner> runners = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Runner r = store.runners()
                    .createRunner("R", new Slug("r-" + i), RunnerKey.generate().hash(), now);
            store.specs().addRunnerSpec(r.id(), spec.id());
            runners.add(r);
        }
        Map<Long, Integer> claims = new ConcurrentHashMap<>();
        try (Store second = StoreFactory.open(null, dataDir)) {
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(runners.size());
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < runners.size(); i++) {
                    Store mine = i % 2 == 0 ? store : second;
                    long runner = runners.get(i).id();
                    done.add(pool.submit(() -> {
                        go.await();
                        for (Optional<Job> j = TestClaims.claim(mine, runner, LeaseId.random(), now);
                                j.isPresent();
                                j = TestClaims.claim(mine, runner, LeaseId.random(), now)) {
                            claims.merge(j.get().id(), 1, Integer::sum);
                        }
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> f : done) f.get();
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(claims).hasSize(jobs);
        assertThat(claims.values()).allMatch(n -> n == 1);
    }
}

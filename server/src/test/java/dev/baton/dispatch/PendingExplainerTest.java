package dev.baton.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.StoreCalls;
import dev.baton.server.testing.TestDatabases;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Job;
import dev.baton.store.NewJob;
import dev.baton.store.NewReport;
import dev.baton.store.Organization;
import dev.baton.store.PendingFacts;
import dev.baton.store.Project;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Runner;
import dev.baton.store.ServingRunner;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.TestClaims;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The queue status of a pending job (docs/api.md, "Why a pending job waits") on real stores: a
 * submission counts the serving runners that are live instead of reading them row by row, and
 * says exactly what reading every row says.
 */
@Tag("postgres")
class PendingExplainerTest {
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    final MutableClock clock = MutableClock.startingNow();
    Store real;
    String jdbcUrl;
    Project project;
    Organization org;
    Spec spec;
    /** Every pendingFacts answer the explainer got, in order. */
    final List<PendingFacts> answers = new ArrayList<>();
    /** Every store method the explainer called, in order. */
    final List<String> calls = new ArrayList<>();

    @AfterEach
    void close() {
        if (real != null) real.close();
    }

    void open(String database) {
        if (database.equals("postgresql")) {
            assumeTrue(TestDatabases.postgresReachable(), "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL);
            String url = TestDatabases.freshPostgresSchema();
            real = StoreFactory.open(url, dir);
            jdbcUrl = "jdbc:" + url;
        } else {
            real = StoreFactory.open("sqlite:" + dir.resolve("baton.db"), dir);
            jdbcUrl = "jdbc:sqlite:" + dir.resolve("baton.db");
        }
        org = real.organizations().createOrganization("Org", Slug.of("org"), PlanTier.TEAM, clock.instant());
        project = real.organizations().createProject(org.id(), "Project", Slug.of("project"), clock.instant());
        spec = real.specs()
                .createSpec(
                        "small", Slug.of("small"), Architecture.X86_64, 1, 1L << 30, 1L << 30, false, clock.instant());
    }

    /** The explainer over the real store; with {@code everyRow}, every serving runner is read by row, as before issue 13's fourth round. */
    PendingExplainer explainer(boolean everyRow) {
        Store seen = StoreCalls.intercept(real, (target, method, args) -> {
            calls.add(method.getName());
            if (method.getName().equals("pendingFacts") && args.length == 3 && everyRow) args[2] = null;
            try {
                Object answer = method.invoke(target, args);
                if (answer instanceof PendingFacts facts) answers.add(facts);
                return answer;
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
        return new PendingExplainer(seen, new Sessions(), clock, TIMEOUT);
    }

    Runner runner(String name, Instant heartbeat) {
        Runner r = real.runners().createRunner(name, Slug.of(name), "hash-" + name, clock.instant());
        real.specs().addRunnerSpec(r.id(), spec.id());
        if (heartbeat != null) real.runners().recordRunnerHeartbeats(Map.of(r.id(), heartbeat));
        return r;
    }

    Job submit() {
        return submit(spec, PlanTier.TEAM.priority());
    }

    Job submit(Spec of, int priority) {
        clock.advance(Duration.ofMillis(1));
        JobConfig config = new JobConfig(
                "http://127.0.0.1:7700",
                project.uuid(),
                null,
                List.of("/bin/sh"),
                List.of("-c", "true"),
                Map.of(),
                new JobTimeout(60),
                null,
                1);
        return real.runs()
                .createRun(
                        new NewReport(project.id(), "main", "box", "json", null, null, null),
                        new NewJob(of.id(), "10.0.0.1", config, 60, priority, RetryPolicy.NONE),
                        org.id(),
                        clock.instant())
                .job();
    }

    /** A finished job of the spec that ran {@code seconds} (history for the estimate). */
    void finished(Runner runner, int seconds) {
        Job job = submit();
        LeaseId lease = LeaseId.random();
        assertThat(TestClaims.claim(real, runner.id(), lease, clock.instant()))
                .map(Job::uuid)
                .contains(job.uuid());
        real.transitions().start(job.uuid(), lease, clock.instant());
        clock.advance(Duration.ofSeconds(seconds));
        real.transitions().complete(job.uuid(), lease, clock.instant());
    }

    void quarantine(Runner r) {
        try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
                PreparedStatement s = c.prepareStatement("UPDATE runner SET quarantined = ? WHERE id = ?")) {
            s.setLong(1, ChronoUnit.MICROS.between(Instant.EPOCH, clock.instant()));
            s.setLong(2, r.id());
            assertThat(s.executeUpdate()).isEqualTo(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The jobs ahead are exact wherever a job stands in a long queue shared with another spec, after
     * claims, requeues, cancels and queue timeouts: near the end of its queue SQLite reads them from
     * the pending counts its triggers keep (and walks the few behind), further up it counts them;
     * PostgreSQL always counts. Those counts must equal the pending jobs themselves.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void theJobsAheadAreExactAnywhereInALongQueue(String database) throws SQLException {
        open(database);
        Spec big = real.specs()
                .createSpec("big", Slug.of("big"), Architecture.X86_64, 4, 1L << 32, 1L << 32, false, clock.instant());
        Runner both = runner("both", null);
        real.specs().addRunnerSpec(both.id(), big.id());
        Runner bigOnly = real.runners().createRunner("big-only", Slug.of("big-only"), "hash-big-only", clock.instant());
        real.specs().addRunnerSpec(bigOnly.id(), big.id());
        for (int i = 0; i < 300; i++) {
            submit(i % 3 == 0 ? big : spec, i % 7 == 0 ? PlanTier.ENTERPRISE.priority() : PlanTier.TEAM.priority());
        }
        // Every way in and out of the queue: claims, a requeue, a cancel, a queue timeout.
        List<Job> claimed = new ArrayList<>();
        for (int i = 0; i < 12; i++)
            claimed.add(TestClaims.claim(real, i % 2 == 0 ? both.id() : bigOnly.id(), LeaseId.random(), clock.instant())
                    .orElseThrow());
        real.transitions()
                .requeue(
                        claimed.get(0).uuid(),
                        claimed.get(0).lease(),
                        AttemptOutcome.ACCEPT_TIMEOUT,
                        5,
                        clock.instant());
        List<Job> pending = real.runs().pendingJobs();
        real.transitions().cancel(pending.get(40).uuid(), null, "test", clock.instant());
        real.transitions().expireQueued(pending.get(90).uuid(), "queue timeout", clock.instant());

        pending = real.runs().pendingJobs(); // dispatch order
        List<Job> ofSpec = pending.stream().filter(j -> j.specId() == spec.id()).toList();
        assertThat(ofSpec.size()).as("long enough to walk past the counts").isGreaterThan(2 * 64);
        for (Job job : ofSpec) {
            // A job of "small" competes with every pending job of both specs ("both" serves them).
            assertThat(real.runs().pendingFacts(job, 20).ahead())
                    .as("jobs ahead of pending job %d", pending.indexOf(job))
                    .isEqualTo(pending.indexOf(job));
        }
        if (database.equals("sqlite")) {
            try (Connection c = DriverManager.getConnection(jdbcUrl);
                    var st = c.createStatement();
                    var rs = st.executeQuery(
                            "SELECT (SELECT group_concat(spec_id || ':' || priority || '=' || n) FROM (SELECT * FROM pending_count"
                                    + " WHERE n <> 0 ORDER BY 1, 2)), (SELECT group_concat(spec_id || ':' || priority || '=' || n) FROM (SELECT spec_id,"
                                    + " priority, COUNT(*) AS n FROM job WHERE status = 0 GROUP BY 1, 2 ORDER BY 1, 2))")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).as("kept counts").isNotNull().isEqualTo(rs.getString(2));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void liveRunnersAreCountedNotListedAndTheRestAreListedInOrder(String database) {
        open(database);
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Instant cutoff = now.minus(TIMEOUT);
        Runner live = runner("live", now);
        Runner atCutoff = runner("at-cutoff", cutoff);
        Runner justBefore = runner("just-before", cutoff.minus(1, ChronoUnit.MICROS));
        Runner never = runner("never", null);
        Runner quarantined = runner("quarantined", now);
        quarantine(quarantined);
        Job job = submit();

        PendingFacts counted = real.runs().pendingFacts(job, 20, cutoff);
        assertThat(counted.freshServing()).isEqualTo(2); // live, at-cutoff
        assertThat(counted.servingRunners())
                .extracting(ServingRunner::id)
                .containsExactly(justBefore.id(), never.id(), quarantined.id());
        assertThat(counted.serving()).isEqualTo(5);

        // A cutoff a nanosecond after a stored heartbeat: that heartbeat is before it (rounded up, not down).
        PendingFacts nanoLater = real.runs().pendingFacts(job, 20, cutoff.plusNanos(1));
        assertThat(nanoLater.freshServing()).isEqualTo(1);
        assertThat(nanoLater.servingRunners())
                .extracting(ServingRunner::id)
                .contains(atCutoff.id())
                .doesNotContain(live.id());

        PendingFacts listed = real.runs().pendingFacts(job, 20);
        assertThat(listed.freshServing()).isZero();
        assertThat(listed.servingRunners())
                .extracting(ServingRunner::id)
                .containsExactly(live.id(), atCutoff.id(), justBefore.id(), never.id(), quarantined.id());
        assertThat(listed)
                .usingRecursiveComparison()
                .ignoringFields("servingRunners", "freshServing")
                .isEqualTo(counted);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aSubmissionWithEveryRunnerLiveReadsNoRunnerRowAndSaysWhatReadingThemSays(String database) {
        open(database);
        Runner a = runner("a", null);
        Runner b = runner("b", null);
        finished(a, 100);
        finished(b, 200);
        real.runners().recordRunnerHeartbeats(Map.of(a.id(), clock.instant(), b.id(), clock.instant()));
        // Both busy: a job each in flight.
        Job busyA = submit();
        Job busyB = submit();
        assertThat(TestClaims.claim(real, a.id(), LeaseId.random(), clock.instant()))
                .map(Job::uuid)
                .contains(busyA.uuid());
        assertThat(TestClaims.claim(real, b.id(), LeaseId.random(), clock.instant()))
                .map(Job::uuid)
                .contains(busyB.uuid());
        Job first = submit();
        Job second = submit();

        QueueStatus status = explainer(false).status(second).orElseThrow();
        assertThat(answers).last().satisfies(f -> {
            assertThat(f.servingRunners()).as("no runner rows read").isEmpty();
            assertThat(f.freshServing()).isEqualTo(2);
        });
        assertThat(status.reason().code()).isEqualTo("runners_busy");
        assertThat(status.reason().message())
                .startsWith("all 2 connected runners of spec 'small' are busy; 1 job is ahead");
        assertThat(status.position()).isEqualTo(2);
        assertThat(answers).last().extracting(PendingFacts::pooled).isEqualTo(false);
        assertThat(calls).as("no pool serves the spec: no pool read").doesNotContain("listPools");
        // D = 150 s, A = 1, F = 2, R = 2: floor(3 / 2) = 1 round.
        assertThat(status.predictedStart()).isEqualTo(clock.instant().plus(Duration.ofSeconds(150)));
        assertThat(explainer(true).status(second)).contains(status);
        assertThat(explainer(false).status(first)).isEqualTo(explainer(true).status(first));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void whenSomeRunnersAreNotLiveTheAnswerIsTheSameAsReadingEveryRow(String database) {
        open(database);
        Runner live = runner("live", null);
        Runner stale = runner("stale", null);
        finished(live, 60);
        real.runners()
                .recordRunnerHeartbeats(Map.of(
                        live.id(),
                        clock.instant(),
                        stale.id(),
                        clock.instant().minus(TIMEOUT).minusSeconds(1)));
        Job job = submit();
        assertThat(explainer(false).status(job))
                .isEqualTo(explainer(true).status(job))
                .hasValueSatisfying(s -> assertThat(s.reason().message()).startsWith("all 1 connected runner of"));

        // No live runner: offline, counting both.
        clock.advance(TIMEOUT.plusSeconds(5));
        assertThat(explainer(false).status(job))
                .isEqualTo(explainer(true).status(job))
                .hasValueSatisfying(s -> assertThat(s.reason().message())
                        .startsWith("2 runners serve spec 'small' but none is connected"));

        // Every runner quarantined, one of them with a live heartbeat: still listed, by slug.
        real.runners().recordRunnerHeartbeats(Map.of(live.id(), clock.instant()));
        quarantine(live);
        quarantine(stale);
        assertThat(explainer(false).status(job))
                .isEqualTo(explainer(true).status(job))
                .hasValueSatisfying(s -> assertThat(s.reason().message()).contains("(live, stale)"));
        assertThat(explainer(false).status(job)).map(s -> s.reason().code()).contains("runners_quarantined");
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void withoutRunnersOrHistoryNothingIsEstimated(String database) {
        open(database);
        Job job = submit();
        assertThat(explainer(false).status(job)).map(s -> s.reason().code()).contains("no_runner");
        runner("live", clock.instant());
        QueueStatus status = explainer(false).status(job).orElseThrow();
        assertThat(status.reason().code()).isEqualTo("runners_busy");
        assertThat(status.predictedStart()).as("no history").isNull();
        assertThat(answers).last().extracting(PendingFacts::recentRuns).isEqualTo(0);
    }

    /**
     * A spec with {@code max_noise_cv} whose connected runners are all too noisy, or have no
     * calibration, says so ({@code no_quiet_runner}, naming each runner's CV); once one measures
     * quiet enough the job waits its turn as any other.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aJobNoConnectedRunnerIsQuietEnoughForSaysSo(String database) {
        open(database);
        spec = real.specs().setSpecMaxNoise(spec.id(), 0.02, clock.instant());
        Runner loud = runner("loud", clock.instant());
        runner("fresh", clock.instant());
        runner("gone", null);
        real.noise()
                .recordNoise(
                        loud.id(), new dev.baton.store.NoiseReading(clock.instant(), 0.041, 0.01, null, 200, null));
        Job job = submit();

        QueueStatus status = explainer(false).status(job).orElseThrow();
        assertThat(status.reason().code()).isEqualTo("no_quiet_runner");
        assertThat(status.reason().message())
                .contains("spec 'small'")
                .contains("max_noise_cv is 0.0200")
                .contains("loud 0.0410")
                .contains("fresh has no calibration")
                .as("a runner that is not connected is not named")
                .doesNotContain("gone");
        assertThat(status.predictedStart()).isNull();

        clock.advance(Duration.ofSeconds(1)); // within the heartbeat timeout: the runners stay connected
        real.noise()
                .recordNoise(loud.id(), new dev.baton.store.NoiseReading(clock.instant(), 0.02, 0.01, null, 200, null));
        assertThat(explainer(false).status(job)).map(s -> s.reason().code()).contains("runners_busy");
    }
}

package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.dispatch.PendingReason;
import dev.baton.dispatch.QueueStatus;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Attempt;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Job;
import dev.baton.store.Organization;
import dev.baton.store.Spec;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10 and 11 over real WebSockets and a real store, once per dialect: why a pending job
 * waits, the decline rule (back-off, then retry on every runner, then fail with the reasons),
 * queue timeouts (also across a restart), and queue position with predicted start on a
 * constructed queue. Time is the fixture's test clock.
 */
abstract class WaitingJobsContractTest {
    private static final Duration SHORT = Duration.ofMillis(300);
    private static final Duration BACKOFF = dev.baton.store.Store.DEFAULT_DECLINE_BACKOFF;

    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    RunnerHandle alice;
    final List<TestRunner> connections = new ArrayList<>();

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("x86 small");
        alice = server.runner(spec);
    }

    @AfterEach
    void stop() {
        connections.forEach(TestRunner::crash);
        server.close();
    }

    TestRunner connect(RunnerHandle handle) {
        TestRunner r = server.connect(handle);
        connections.add(r);
        return r;
    }

    /** Sends ready (long poll) and waits until the server has taken it. */
    static void waitFor(TestRunner runner) {
        runner.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);
    }

    static ClaimedJob claim(TestRunner runner) {
        runner.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1));
        return runner.expect(ServerMessage.Job.class).job();
    }

    static void decline(TestRunner runner, ClaimedJob job, DeclineCode code, String reason) {
        runner.send(new RunnerMessage.Declined(job.uuid(), job.lease(), code, reason));
        runner.expect(ServerMessage.Ack.class);
    }

    static void startRunning(TestRunner runner, ClaimedJob job) {
        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        runner.expect(ServerMessage.Ack.class);
    }

    /**
     * Waits for a deadline's effect: the fixture's advance fires due deadlines on this thread, but
     * the deadline loop may take one first and apply it on its own thread a moment later.
     */
    Job awaitStatus(Job job, JobStatus expected) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(server.job(job).status()).isEqualTo(expected));
        return server.job(job);
    }

    QueueStatus queue(Job job) {
        return server.channel().status(server.job(job)).orElseThrow();
    }

    String reason(Job job) {
        return queue(job).reason().code();
    }

    // ---- the decline rule ----------------------------------------------------------------------

    @Test
    void aJobDeclinedByItsOnlyRunnerIsRetriedAfterTheBackoffAndFailsWithItsReasonOnceRequeuesAreSpent() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob first = claim(runner);
        decline(runner, first, DeclineCode.PULL_FAILED, "registry answered HTTP 503");

        Job waiting = server.job(job);
        assertThat(waiting.status()).isEqualTo(JobStatus.PENDING);
        assertThat(waiting.declineBackoffUntil())
                .isEqualTo(server.clock.instant().plus(BACKOFF));
        assertThat(waiting.notBefore())
                .as("the retry backoff of failed jobs is another thing")
                .isNull();
        PendingReason why = queue(job).reason();
        assertThat(why.code()).isEqualTo("retry_backoff");
        assertThat(why.until()).isEqualTo(waiting.declineBackoffUntil());
        assertThat(why.declines())
                .containsExactly(
                        new PendingReason.RunnerDecline("runner-1", "pull_failed", "registry answered HTTP 503"));

        // Not offered during the back-off, offered again as soon as it ends (no poll needed).
        waitFor(runner);
        server.advance(BACKOFF.minusSeconds(1));
        runner.expectSilence(SHORT);
        server.advance(Duration.ofSeconds(1));
        ClaimedJob again = runner.expect(ServerMessage.Job.class).job();
        assertThat(again.uuid()).isEqualTo(job.uuid());
        assertThat(again.attempt()).isEqualTo(2);

        // Every decline is a requeue: with max_requeues = 3 the fourth decline fails the job.
        ClaimedJob current = again;
        for (int declines = 2; declines <= server.config.maxRequeues(); declines++) {
            decline(runner, current, DeclineCode.PULL_FAILED, "registry answered HTTP 503");
            waitFor(runner);
            server.advance(BACKOFF);
            current = runner.expect(ServerMessage.Job.class).job();
        }
        decline(runner, current, DeclineCode.IMAGE_REFUSED, "manifest digest mismatch");
        Job failed = server.job(job);
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.errorCode()).isEqualTo("declined");
        assertThat(failed.error())
                .contains("max_requeues (3)")
                .contains("runner-1 (image_refused: manifest digest mismatch)");
        List<Attempt> attempts = server.store.runs().attempts(job.id());
        assertThat(attempts)
                .hasSize(server.config.maxRequeues() + 1)
                .allMatch(a -> a.outcome() == AttemptOutcome.DECLINED);
        assertThat(attempts.getFirst().declineCode()).isEqualTo("pull_failed");
        assertThat(attempts.getFirst().declineReason()).isEqualTo("registry answered HTTP 503");
        assertThat(attempts.getLast().declineCode()).isEqualTo("image_refused");
        assertThat(server.channel().status(failed)).isEmpty();
    }

    @Test
    void withSeveralRunnersEachGetsAChancePerRoundAndTheRoundEndsInABackoff() {
        RunnerHandle bob = server.runner(spec);
        Job job = server.submit(spec);
        TestRunner a = connect(alice);
        TestRunner b = connect(bob);
        ClaimedJob first = claim(a);
        waitFor(b);
        decline(a, first, DeclineCode.NO_COMMAND, "neither the image nor the job names a command");
        // Alice declined, Bob has not: Bob gets it at once, and no back-off starts.
        ClaimedJob second = b.expect(ServerMessage.Job.class).job();
        assertThat(second.uuid()).isEqualTo(job.uuid());
        waitFor(a);
        decline(b, second, DeclineCode.EXECUTOR_ERROR, "runc is missing");
        a.expectSilence(SHORT); // Alice declined in this round: not offered again yet
        PendingReason why = queue(job).reason();
        assertThat(why.code()).isEqualTo("retry_backoff");
        assertThat(why.declines())
                .extracting(PendingReason.RunnerDecline::runner)
                .containsExactly("runner-1", "runner-2");

        // After the back-off a new round: the longest-waiting runner (Alice) tries again, then Bob.
        waitFor(b);
        server.advance(BACKOFF);
        ClaimedJob third = a.expect(ServerMessage.Job.class).job();
        assertThat(third.attempt()).isEqualTo(3);
        decline(a, third, DeclineCode.NO_COMMAND, "still no command");
        ClaimedJob fourth = b.expect(ServerMessage.Job.class).job();
        assertThat(fourth.attempt()).isEqualTo(4);
        decline(b, fourth, DeclineCode.EXECUTOR_ERROR, "runc is missing");
        Job failed = server.job(job);
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.errorCode()).isEqualTo("declined");
        assertThat(failed.error())
                .contains("runner-2 (executor_error: runc is missing)")
                .contains("runner-1 (no_command: still no command)");
    }

    @Test
    void aRunnerAddedDuringTheBackoffGetsTheJobAtOnce() {
        Job job = server.submit(spec);
        TestRunner a = connect(alice);
        decline(a, claim(a), DeclineCode.IMAGE_REFUSED, "wrong architecture");
        assertThat(reason(job)).isEqualTo("retry_backoff");
        RunnerHandle newcomer = server.runner(spec);
        TestRunner n = connect(newcomer);
        // (The server registers the channel just after the handshake the client saw.)
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(reason(job))
                        .as("a runner that never declined may take it")
                        .isEqualTo("runners_busy"));
        ClaimedJob c = claim(n);
        assertThat(c.uuid()).isEqualTo(job.uuid());
        assertThat(c.attempt()).isEqualTo(2);
    }

    @Test
    void declinedByTheConnectedRunnersWhileAnotherIsOfflineSaysWhoDeclinedAndWhy() {
        server.runner(spec); // serves the spec, never connects
        Job job = server.submit(spec);
        TestRunner a = connect(alice);
        decline(a, claim(a), DeclineCode.IMAGE_REQUIRED, "the runc executor runs images; this job has no image digest");
        PendingReason why = queue(job).reason();
        assertThat(why.code()).isEqualTo("declined");
        assertThat(why.declines())
                .containsExactly(new PendingReason.RunnerDecline(
                        "runner-1", "image_required", "the runc executor runs images; this job has no image digest"));
        assertThat(why.message()).contains("runner-1 (image_required").contains("not connected");
        assertThat(queue(job).predictedStart()).isNull();
        assertThat(server.job(job).declineBackoffUntil())
                .as("not every runner declined: no back-off")
                .isNull();
    }

    @Test
    void aDeclineWithoutACodeIsStoredAsOther() {
        Job job = server.submit(spec);
        server.runner(spec);
        TestRunner a = connect(alice);
        ClaimedJob c = claim(a);
        a.send(new RunnerMessage.Declined(c.uuid(), c.lease(), "an old runner"));
        a.expect(ServerMessage.Ack.class);
        assertThat(server.store.runs().attempts(job.id()).getFirst())
                .extracting(Attempt::declineCode, Attempt::declineReason)
                .containsExactly("other", "an old runner");
        assertThat(scrape()).contains("baton_job_declines_total{code=\"other\"} 1.0");
    }

    // ---- why a job waits -------------------------------------------------------------------------

    @Test
    void everyPendingJobSaysWhyItWaits() {
        Spec lonely = server.spec("nobody serves");
        Job noRunner = server.submit(lonely);
        assertThat(reason(noRunner)).isEqualTo("no_runner");
        assertThat(queue(noRunner).reason().message()).contains("nobody-serves");

        Job offline = server.submit(spec);
        assertThat(reason(offline)).isEqualTo("runners_offline");
        assertThat(queue(offline).reason().message())
                .contains("1 runner serves")
                .contains("none is connected");

        TestRunner a = connect(alice);
        ClaimedJob busy = claim(a);
        assertThat(busy.uuid()).isEqualTo(offline.uuid());
        startRunning(a, busy);
        Job second = server.submit(spec);
        Job third = server.submit(spec);
        assertThat(queue(second).reason())
                .extracting(PendingReason::code, PendingReason::ahead)
                .containsExactly("runners_busy", 0);
        assertThat(queue(third).reason())
                .extracting(PendingReason::code, PendingReason::ahead)
                .containsExactly("runners_busy", 1);
        assertThat(queue(third).position()).isEqualTo(2);

        server.store.specs().updateSpec(lonely.id(), null, null, true, server.clock.instant());
        assertThat(reason(noRunner)).isEqualTo("spec_archived");

        // Metrics: pending jobs by reason, all codes present.
        String metrics = scrape();
        assertThat(metrics).contains("baton_jobs_pending{reason=\"spec_archived\"} 1.0");
        assertThat(metrics).contains("baton_jobs_pending{reason=\"no_runner\"} 0.0");
        assertThat(metrics).contains("baton_jobs_pending{reason=\"runners_busy\"} 2.0");
        for (PendingReason.Code code : PendingReason.Code.values())
            assertThat(metrics).contains("reason=\"" + code.wireName() + "\"");
    }

    @Test
    void aFreeOrganizationsSecondJobWaitsForItsLimit() {
        Organization free = server.organization(PlanTier.FREE);
        RunnerHandle bob = server.runner(spec);
        Job first = server.submit(spec, free, "192.0.2.9", 600, List.of());
        Job second = server.submit(spec, free, "192.0.2.9", 600, List.of());
        TestRunner a = connect(alice);
        TestRunner b = connect(bob);
        ClaimedJob running = claim(a);
        assertThat(running.uuid()).isEqualTo(first.uuid());
        startRunning(a, running);
        waitFor(b);
        b.expectSilence(SHORT);
        assertThat(reason(second)).isEqualTo("org_limit");
        assertThat(scrape()).contains("baton_jobs_pending{reason=\"org_limit\"} 1.0");
    }

    // ---- never wait forever: queue timeout -------------------------------------------------------

    @Test
    void aJobPendingPastItsQueueTimeoutFailsSayingWhyItWaited() {
        Spec lonely = server.spec("nobody serves");
        Job job = server.submitWithQueueTimeout(lonely, 60);
        server.advance(Duration.ofSeconds(59));
        assertThat(server.job(job).status()).isEqualTo(JobStatus.PENDING);
        server.advance(Duration.ofSeconds(1));
        Job failed = awaitStatus(job, JobStatus.FAILED);
        assertThat(failed.errorCode()).isEqualTo("queue_timeout");
        assertThat(failed.error()).startsWith("queue_timeout:").contains("60 s").contains("no runner serves");
        assertThat(failed.completed()).isEqualTo(server.clock.instant());
    }

    @Test
    void aJobClaimedAtItsQueueDeadlineIsNotTakenFromItsRunnerButFailsIfItComesBack() {
        RunnerHandle bob = server.runner(spec); // keeps the decline round open: no back-off
        Job job = server.submitWithQueueTimeout(spec, 60);
        TestRunner a = connect(alice);
        ClaimedJob c = claim(a);
        for (int i = 0; i < 3; i++) {
            server.advance(Duration.ofSeconds(25));
            a.send(new RunnerMessage.Preparing(c.uuid(), c.lease(), "pulling"));
            a.expect(ServerMessage.Ack.class);
        }
        assertThat(server.job(job).status()).isEqualTo(JobStatus.CLAIMED);
        TestRunner b = connect(bob);
        waitFor(b);
        decline(a, c, DeclineCode.PULL_FAILED, "slow registry");
        b.expectSilence(SHORT);
        assertThat(server.job(job).status()).isEqualTo(JobStatus.FAILED);
        assertThat(server.job(job).errorCode()).isEqualTo("queue_timeout");
    }

    @Test
    void aJobThatStartsInTimeIsNotFailedByItsQueueTimeout() {
        Job job = server.submitWithQueueTimeout(spec, 60);
        TestRunner a = connect(alice);
        ClaimedJob c = claim(a);
        startRunning(a, c);
        server.advance(Duration.ofSeconds(61));
        a.send(new RunnerMessage.Heartbeat(c.uuid(), c.lease()));
        a.expect(ServerMessage.Ack.class);
        assertThat(server.job(job).status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void aJobRetriedAfterAFailedAttemptIsNoLongerBoundByItsQueueTimeout() {
        Job job = server.submit(
                spec,
                server.organization,
                "192.0.2.1",
                600,
                List.of(),
                new dev.baton.store.RetryPolicy(2, 120, false),
                60);
        TestRunner a = connect(alice);
        ClaimedJob c = claim(a);
        startRunning(a, c);
        a.send(new RunnerMessage.Failed(c.uuid(), c.lease(), List.of(), "flaky"));
        a.expect(ServerMessage.Ack.class);
        assertThat(server.job(job).status()).isEqualTo(JobStatus.PENDING);
        server.advance(Duration.ofSeconds(61));
        assertThat(server.job(job).status()).isEqualTo(JobStatus.PENDING);
        assertThat(reason(job)).isEqualTo("retry_backoff");
        assertThat(queue(job).reason().message()).contains("failed");
        // Also after a restart, which re-arms queue deadlines from the database.
        server.stopServer();
        server.startServer();
        server.advance(Duration.ZERO);
        assertThat(server.job(job).status()).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void queueDeadlinesAndDeclineBackoffsSurviveARestart() {
        Spec lonely = server.spec("nobody serves");
        Job timed = server.submitWithQueueTimeout(lonely, 60);
        Job declined = server.submit(spec);
        TestRunner a = connect(alice);
        decline(a, claim(a), DeclineCode.PULL_FAILED, "registry down");
        a.crash();
        connections.remove(a);
        server.stopServer();
        server.clock.advance(Duration.ofSeconds(61)); // both deadlines pass while the server is down
        server.startServer();
        server.advance(Duration.ZERO);
        awaitStatus(timed, JobStatus.FAILED);
        assertThat(server.job(timed).errorCode()).isEqualTo("queue_timeout");
        // The back-off ended while down: the job is claimable, and a waiting runner gets it.
        TestRunner again = connect(alice);
        ClaimedJob retried = claim(again);
        assertThat(retried.uuid()).isEqualTo(declined.uuid());
        assertThat(retried.attempt()).isEqualTo(2);
    }

    @Test
    void aBackoffThatEndsAfterARestartStillWakesTheWaitingRunner() {
        Job job = server.submit(spec);
        TestRunner a = connect(alice);
        decline(a, claim(a), DeclineCode.PULL_FAILED, "registry down");
        a.crash();
        connections.remove(a);
        server.stopServer();
        server.startServer();
        TestRunner again = connect(alice);
        waitFor(again);
        again.expectSilence(SHORT);
        server.advance(BACKOFF);
        assertThat(again.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
    }

    // ---- queue position and predicted start --------------------------------------------------------

    @Test
    void positionAndPredictedStartOnAConstructedQueue() {
        RunnerHandle bob = server.runner(spec);
        Spec other = server.spec("other spec");
        server.store.specs().addRunnerSpec(bob.runner().id(), other.id()); // Bob's jobs of "other" compete too
        Spec unrelated = server.spec("unrelated");
        server.runner(unrelated);
        TestRunner a = connect(alice);
        TestRunner b = connect(bob);

        // History: two finished jobs of the spec, 100 s and 200 s long (as 50 s steps): D = 150 s.
        for (int seconds : new int[] {100, 200}) {
            Job done = server.submit(spec);
            ClaimedJob c = claim(a);
            assertThat(c.uuid()).isEqualTo(done.uuid());
            startRunning(a, c);
            for (int s = 0; s < seconds; s += 50) { // keep both channels alive past the heartbeat timeout
                server.advance(Duration.ofSeconds(50));
                a.send(new RunnerMessage.Heartbeat(c.uuid(), c.lease()));
                a.expect(ServerMessage.Ack.class);
                b.send(new RunnerMessage.Heartbeat(null, null));
                b.expect(ServerMessage.Ack.class);
            }
            a.send(new RunnerMessage.Completed(
                    c.uuid(), c.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
            a.expect(ServerMessage.Ack.class);
        }
        // Both runners busy (F = 2): Alice runs a job of the spec, Bob one of "other".
        Job busyA = server.submit(spec);
        Job busyB = server.submit(other);
        assertThat(claim(a).uuid()).isEqualTo(busyA.uuid());
        assertThat(claim(b).uuid()).isEqualTo(busyB.uuid());

        Organization enterprise = server.organization(PlanTier.ENTERPRISE);
        Job t1 = server.submit(spec);
        server.clock.advance(Duration.ofMillis(1));
        Job o1 = server.submit(other);
        server.clock.advance(Duration.ofMillis(1));
        Job t2 = server.submit(spec);
        server.clock.advance(Duration.ofMillis(1));
        Job u1 = server.submit(unrelated);
        Job urgent = server.submit(spec, enterprise, "192.0.2.7", 600, List.of());

        // Dispatch order: priority DESC, then age. "other" competes (Bob serves both); "unrelated" does not.
        assertThat(queue(urgent).position()).isEqualTo(1);
        assertThat(queue(t1).position()).isEqualTo(2);
        assertThat(queue(o1).position()).isEqualTo(3);
        assertThat(queue(t2).position()).isEqualTo(4);
        assertThat(queue(u1).position()).isEqualTo(1);

        Instant now = server.clock.instant();
        Duration d = Duration.ofSeconds(150);
        // floor((A + F) / R) × D with R = 2 runners connected, F = 2 in flight.
        assertThat(queue(urgent).predictedStart()).isEqualTo(now.plus(d.multipliedBy((0 + 2) / 2)));
        assertThat(queue(t1).predictedStart()).isEqualTo(now.plus(d.multipliedBy((1 + 2) / 2)));
        assertThat(queue(t2).predictedStart()).isEqualTo(now.plus(d.multipliedBy((3 + 2) / 2)));
        assertThat(queue(u1).predictedStart())
                .as("no history for the unrelated spec")
                .isNull();
        assertThat(queue(u1).reason().code()).isEqualTo("runners_offline");
    }

    String scrape() {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(
                            HttpRequest.newBuilder(server.http("/metrics")).build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

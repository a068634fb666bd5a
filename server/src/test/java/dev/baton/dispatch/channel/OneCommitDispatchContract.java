package dev.baton.dispatch.channel;

import static dev.baton.server.testing.ChannelFixture.ACCEPTANCE_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Attempt;
import dev.baton.store.Job;
import dev.baton.store.Spec;
import dev.baton.store.StoreException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dispatch in one commit (decision 0063), over real WebSockets and a real store, once per
 * dialect: a submission with a runner of its spec waiting claims for it in the job's own commit,
 * and everything after the commit is a pump's hand-out (acceptance window, requeue). Time is the
 * fixture's test clock.
 */
abstract class OneCommitDispatchContract {
    private static final Duration SHORT = Duration.ofMillis(300);

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

    /** Sends ready and waits until the server has taken it (the bare heartbeat is acked after it). */
    static void waitFor(TestRunner runner) {
        runner.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);
    }

    JobStatus status(Job job) {
        return server.job(job).status();
    }

    Job submit() {
        return server.submitInOneCommit(spec, server.organization.id());
    }

    @Test
    void aWaitingRunnerGetsTheJobClaimedInItsSubmissionsCommit() {
        TestRunner runner = connect(alice);
        waitFor(runner);
        int claims = server.claims.get();
        int pendingReads = server.pendingReads.get();

        Job job = submit();

        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        assertThat(claimed.uuid()).isEqualTo(job.uuid());
        assertThat(claimed.attempt()).isEqualTo(1);
        assertThat(status(job)).isEqualTo(JobStatus.CLAIMED);
        assertThat(server.claims.get())
                .as("no claim transaction of its own: the claim was in the submission's commit")
                .isEqualTo(claims);
        assertThat(server.pendingReads.get()).isEqualTo(pendingReads);

        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        runner.send(new RunnerMessage.Completed(
                claimed.uuid(), claimed.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
        runner.expect(ServerMessage.Ack.class);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(status(job)).isEqualTo(JobStatus.PROCESSED));
    }

    @Test
    void aJobClaimedInItsCommitButNeverAcceptedReturnsToPendingAsAnyOffer() {
        TestRunner runner = connect(alice);
        waitFor(runner);
        Job job = submit();
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();

        server.advance(ACCEPTANCE_TIMEOUT.plusSeconds(1));

        assertThat(runner.expect(ServerMessage.Stale.class).reason()).isEqualTo("acceptance_timeout");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(status(job)).isEqualTo(JobStatus.PENDING));
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Stale.class);
        TestRunner other = connect(server.runner(spec));
        other.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ClaimedJob again = other.expect(ServerMessage.Job.class).job();
        assertThat(again.uuid()).isEqualTo(job.uuid());
        assertThat(again.attempt()).isEqualTo(2);
    }

    @Test
    void withNoRunnerWaitingTheJobIsCommittedPendingAndPumpedAsBefore() {
        Job job = submit();
        assertThat(status(job)).isEqualTo(JobStatus.PENDING);

        TestRunner runner = connect(alice);
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));

        assertThat(runner.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
    }

    @Test
    void aSubmissionWhoseCommitFailsLeavesTheRunnerWaitingForTheNextJob() {
        TestRunner runner = connect(alice);
        waitFor(runner);

        assertThatThrownBy(() -> server.submitInOneCommit(spec, 999_999L)).isInstanceOf(StoreException.class);
        runner.expectSilence(SHORT);

        Job job = submit();
        assertThat(runner.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
    }

    @Test
    void aJobDeclinedAfterItsOneCommitClaimGoesToTheOtherWaitingRunner() {
        TestRunner first = connect(alice);
        waitFor(first);
        TestRunner second = connect(server.runner(spec));
        waitFor(second);
        // The first runner declines: its claims exclude that job, the second runner's do not.
        Job declined = submit();
        ClaimedJob offered = first.expect(ServerMessage.Job.class).job();
        assertThat(offered.uuid()).isEqualTo(declined.uuid());
        first.send(new RunnerMessage.Declined(offered.uuid(), offered.lease(), "disk full"));
        first.expect(ServerMessage.Ack.class);
        assertThat(second.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(declined.uuid());
    }

    @Test
    void theRunnerThatHoldsTheImageIsChosenAheadOfAnOlderColdWaiter() {
        ImageDigest a = ImageDigest.of("sha256:" + "a".repeat(64));
        ImageDigest b = ImageDigest.of("sha256:" + "b".repeat(64));
        TestRunner cold = connect(alice);
        cold.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1, null, null, null, null, List.of(b)));
        cold.send(new RunnerMessage.Heartbeat(null, null));
        cold.expect(ServerMessage.Ack.class);
        TestRunner warm = connect(server.runner(spec));
        warm.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1, null, null, null, null, List.of(b, a)));
        warm.send(new RunnerMessage.Heartbeat(null, null));
        warm.expect(ServerMessage.Ack.class);
        int claims = server.claims.get();

        Job job = server.submitInOneCommit(spec, server.organization.id(), a);

        assertThat(warm.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
        cold.expectSilence(SHORT);
        List<Attempt> attempts = server.store.runs().attempts(job.id());
        assertThat(attempts.get(attempts.size() - 1).warm()).isTrue();
        assertThat(server.claims.get()).isEqualTo(claims);
    }
}

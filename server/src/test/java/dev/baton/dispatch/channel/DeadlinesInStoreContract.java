package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.metrics.BatonMetrics;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Job;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import dev.baton.store.TestClaims;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deadlines live in the store (issue 14): a node that crashed (its timers, sweeps and heartbeats
 * stopped at once, {@link RunnerChannel#halt}) leaves nothing behind that another node, which
 * never ran a recovery pass, cannot act on; and of two nodes sweeping at once, exactly one acts
 * on each deadline. The clock is injected: minutes of timeouts pass in milliseconds. The other
 * nodes here are channels on the same store and clock that were never started (no background
 * loops), so that only the sweeps the test runs act.
 */
abstract class DeadlinesInStoreContract {
    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    final List<TestRunner> connections = new ArrayList<>();
    final List<RunnerChannel> others = new ArrayList<>();

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("x86 small");
    }

    @AfterEach
    void stop() {
        connections.forEach(TestRunner::crash);
        others.forEach(RunnerChannel::close);
        server.close();
    }

    /** Another node on the same store and clock, not started: it acts only when the test sweeps. */
    RunnerChannel otherNode(String id, Duration nodeTimeout) {
        RunnerChannel node = new RunnerChannel(
                server.store,
                server.config.withNode(id, nodeTimeout),
                server.clock,
                (pull, now) -> "pull-token",
                server.outputs,
                new BatonMetrics());
        others.add(node);
        return node;
    }

    TestRunner connect() {
        TestRunner r = server.connect(server.runner(spec));
        connections.add(r);
        return r;
    }

    ClaimedJob claim(TestRunner runner) {
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        return runner.expect(ServerMessage.Job.class).job();
    }

    void start(TestRunner runner, ClaimedJob job) {
        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        runner.expect(ServerMessage.Ack.class);
    }

    @Test
    void anAcceptanceWindowOutlivesTheNodeThatOpenedIt() {
        Job job = server.submit(spec);
        TestRunner runner = connect();
        claim(runner);
        server.channel().halt();
        RunnerChannel other = otherNode("node-n", Duration.ofHours(1));

        server.clock.advance(ChannelFixture.ACCEPTANCE_TIMEOUT.minusSeconds(1));
        assertThat(other.sweepDeadlines()).isZero();
        server.clock.advance(Duration.ofSeconds(2));
        assertThat(other.sweepDeadlines()).isEqualTo(1);

        Job after = server.job(job);
        assertThat(after.status()).isEqualTo(JobStatus.PENDING);
        assertThat(after.requeues()).isEqualTo(1);
        assertThat(server.store.runs().attempts(after.id()).getFirst().outcome())
                .isEqualTo(AttemptOutcome.ACCEPT_TIMEOUT);
        assertThat(other.sweepDeadlines()).as("a deadline is acted on once").isZero();
    }

    @Test
    void aHardTimeoutAndTheCancelDeadlineAfterItAreActedOnByAnotherNode() {
        Job job = server.submit(spec, server.organization, "192.0.2.1", 60, List.of());
        TestRunner runner = connect();
        start(runner, claim(runner));
        server.channel().halt();
        RunnerChannel other = otherNode("node-n", Duration.ofHours(1));

        server.clock.advance(Duration.ofSeconds(60).plus(ChannelFixture.GRACE).minusSeconds(1));
        assertThat(other.sweepDeadlines()).isZero();
        server.clock.advance(Duration.ofSeconds(1));
        assertThat(other.sweepDeadlines()).isEqualTo(1);
        assertThat(server.job(job).status()).isEqualTo(JobStatus.CANCELED);
        assertThat(server.job(job).error()).contains("hard timeout");

        server.clock.advance(ChannelFixture.CANCEL_DEADLINE.plusSeconds(1));
        assertThat(other.sweepDeadlines()).as("the cancel deadline").isEqualTo(1);
        assertThat(other.sweepDeadlines()).isZero();
    }

    @Test
    void aDeadNodesRunnersAreDisconnectedAndTheirJobsLostAfterTheHeartbeatTimeout() {
        Job plain = server.submit(spec);
        Job retried = server.submit(spec, new RetryPolicy(2, 0, true));
        TestRunner first = connect();
        TestRunner second = connect();
        start(first, claim(first));
        start(second, claim(second));
        server.channel().flushHeartbeats();
        server.channel().halt(); // its last heartbeat is now
        RunnerChannel other = otherNode("node-n", Duration.ofSeconds(30));

        server.clock.advance(Duration.ofSeconds(31));
        other.sweepDeadlines();
        assertThat(server.store.nodes().listNodes())
                .filteredOn(n -> n.id().equals(server.config.nodeId()))
                .singleElement()
                .satisfies(n -> assertThat(n.stopped()).as("found dead").isNotNull());
        assertThat(server.store.nodes().runnerNode(server.job(plain).runnerId()))
                .as("its runners are detached")
                .isEmpty();
        assertThat(server.job(plain).status())
                .as("its runners get the heartbeat timeout to come back")
                .isEqualTo(JobStatus.RUNNING);

        server.clock.advance(ChannelFixture.HEARTBEAT_TIMEOUT);
        assertThat(other.sweepDeadlines()).isEqualTo(2);
        assertThat(server.job(plain).status()).isEqualTo(JobStatus.FAILED);
        assertThat(server.job(plain).error()).contains("lost contact");
        assertThat(server.job(retried).status()).as("retry_when_runner_lost").isEqualTo(JobStatus.PENDING);
    }

    @Test
    void aNodeFoundDeadWhilePausedRegistersAgainAndItsRunnersKeepTheirJobs() {
        Job job = server.submit(spec);
        TestRunner runner = connect();
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.channel().flushHeartbeats();
        server.channel().halt(); // paused: no heartbeats, no sweeps
        RunnerChannel other = otherNode("node-n", Duration.ofSeconds(30));
        server.clock.advance(Duration.ofSeconds(31));
        other.sweepDeadlines();
        long runnerId = server.job(job).runnerId();
        assertThat(server.store.nodes().runnerNode(runnerId))
                .as("detached by the node that found it dead")
                .isEmpty();

        // It resumes: its next heartbeat flush finds it stopped, so it registers and re-attaches its runners.
        server.channel().flushHeartbeats();
        assertThat(server.store.nodes().runnerNode(runnerId)).contains(server.config.nodeId());
        assertThat(server.store.nodes().listNodes())
                .filteredOn(n -> n.id().equals(server.config.nodeId()))
                .singleElement()
                .satisfies(n -> assertThat(n.stopped()).isNull());
        // The runner speaks of its job: the lost deadline the other node left is dropped.
        runner.send(new RunnerMessage.Heartbeat(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        server.clock.advance(ChannelFixture.HEARTBEAT_TIMEOUT);
        server.channel().flushHeartbeats(); // alive again (its background flusher stays stopped in this test)
        assertThat(other.sweepDeadlines()).isZero();
        assertThat(server.job(job).status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void aDisconnectTheStoreMissedIsFoundByTheFallbackSweep() {
        Job job = server.submit(spec);
        var handle = server.runner(spec);
        // As if the channel had closed while the database was unreachable: recorded here, no channel here.
        server.store.nodes().attachRunner(handle.runner().id(), server.config.nodeId());
        TestClaims.claim(
                server.store,
                handle.runner().id(),
                LeaseId.random(),
                server.clock.instant(),
                server.clock.instant().plus(Duration.ofHours(1)));
        // (This node's own background loops may get there first; the outcome is what counts.)
        server.channel().detachStrayRunners();
        assertThat(server.store.nodes().runnerNode(handle.runner().id())).isEmpty();
        server.clock.advance(ChannelFixture.HEARTBEAT_TIMEOUT);
        server.channel().sweepDeadlines();
        assertThat(server.job(job).status())
                .as("lost before start: back to the queue")
                .isEqualTo(JobStatus.PENDING);

        TestRunner connected = connect();
        connected.welcome();
        assertThat(server.channel().detachStrayRunners())
                .as("a runner with a channel here stays")
                .isZero();
    }

    @Test
    void aRestartAfterALongStopGivesTheRunnersTheirHeartbeatTimeoutFromTheStart() {
        Job job = server.submit(spec);
        var handle = server.runner(spec);
        TestRunner runner = server.connect(handle);
        connections.add(runner);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.stopServer();
        server.clock.advance(Duration.ofMinutes(
                3)); // past the heartbeat timeout counted from the stop (within the job's own timeout)
        server.startServer();
        server.channel().runDueDeadlines();
        assertThat(server.job(job).status())
                .as("no runner could reach a node while none ran")
                .isEqualTo(JobStatus.RUNNING);

        server.clock.advance(ChannelFixture.HEARTBEAT_TIMEOUT.minusSeconds(1));
        TestRunner back = server.connect(handle);
        connections.add(back);
        back.send(new RunnerMessage.Heartbeat(claimed.uuid(), claimed.lease()));
        back.expect(ServerMessage.Ack.class);
        server.advance(Duration.ofSeconds(2));
        assertThat(server.job(job).status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void aLostWakeUpDelaysWorkButNeverLosesIt() {
        // A second node that hears nothing from the others (as if every notification were lost).
        RunnerChannel deaf = new RunnerChannel(
                server.store,
                server.config.withNode("node-deaf", Duration.ofHours(1)),
                server.clock,
                (pull, now) -> "pull-token",
                server.outputs,
                new BatonMetrics(),
                dev.baton.dispatch.cluster.ClusterBus.LOCAL);
        others.add(deaf);
        deaf.start();
        io.javalin.Javalin app =
                io.javalin.Javalin.create(cfg -> deaf.routes().addRoutes(cfg)).start("127.0.0.1", 0);
        try {
            var handle = server.runner(spec);
            TestRunner runner = TestRunner.connect(
                    java.net.URI.create("ws://127.0.0.1:" + app.port() + "/v0/runners/"
                            + handle.runner().slug() + "/channel"),
                    handle.key());
            connections.add(runner);
            runner.send(new RunnerMessage.Ready(300, "linux", "x86_64", "test", 1));
            runner.send(new RunnerMessage.Heartbeat(null, null));
            runner.expect(ServerMessage.Ack.class);
            Job job = server.submit(spec); // submitted on the other node, which wakes only its own runners
            // The deaf node's once-a-second fallback offers the job to its waiting runner (TestRunner waits up to 10
            // s).
            assertThat(runner.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
        } finally {
            app.stop();
        }
    }

    @Test
    void ofTwoNodesSweepingAtOnceExactlyOneActsOnEachDeadline() throws Exception {
        int jobs = 40;
        List<Job> claimed = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            Job job = server.submit(spec);
            var runner = server.runner(spec);
            claimed.add(TestClaims.claim(server.store, runner.runner().id(), LeaseId.random(), server.clock.instant())
                    .orElseThrow());
            assertThat(claimed.getLast().uuid()).isEqualTo(job.uuid());
        }
        server.channel().halt();
        RunnerChannel n1 = otherNode("node-1", Duration.ofHours(1));
        RunnerChannel n2 = otherNode("node-2", Duration.ofHours(1));
        server.clock.advance(ChannelFixture.ACCEPTANCE_TIMEOUT.plusSeconds(1));

        CountDownLatch go = new CountDownLatch(1);
        try (var pool = Executors.newFixedThreadPool(2)) {
            Future<Integer> a = pool.submit(() -> {
                go.await();
                return n1.sweepDeadlines();
            });
            Future<Integer> b = pool.submit(() -> {
                go.await();
                return n2.sweepDeadlines();
            });
            go.countDown();
            // Each sweep counts every job it selected under its lock: a job seen by both would count twice.
            assertThat(a.get() + b.get()).isEqualTo(jobs);
        }
        for (Job job : claimed) {
            Job after = server.job(job);
            assertThat(after.status()).isEqualTo(JobStatus.PENDING);
            assertThat(after.requeues()).isEqualTo(1);
        }
    }
}

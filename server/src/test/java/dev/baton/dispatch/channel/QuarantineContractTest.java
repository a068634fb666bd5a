package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Job;
import dev.baton.store.Runner;
import dev.baton.store.Spec;
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
 * Issue 19's flaky-runner quarantine over real WebSockets and a real store, once per dialect. The
 * flaky runner is a protocol-level runner that declines every job with {@code executor_error},
 * as the agent does when its executor cannot set a job up (IterativeExecution); a real broken
 * runtime is not needed to exercise what the server decides.
 */
abstract class QuarantineContractTest {
    private static final int THRESHOLD = 3;
    /** Shorter than the fixture's heartbeat timeout, so a runner outlives a quiet spell past it. */
    private static final Duration WINDOW = Duration.ofMinutes(1);

    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    final List<TestRunner> connections = new ArrayList<>();

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir, c -> c.withQuarantine(THRESHOLD, WINDOW));
        spec = server.spec("bare metal");
    }

    @AfterEach
    void stop() {
        connections.forEach(TestRunner::crash);
        server.close();
    }

    private TestRunner connect(RunnerHandle handle) {
        TestRunner r = server.connect(handle);
        connections.add(r);
        return r;
    }

    private static ClaimedJob claim(TestRunner runner) {
        runner.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1));
        return runner.expect(ServerMessage.Job.class).job();
    }

    private static void decline(TestRunner runner, ClaimedJob job, DeclineCode code) {
        runner.send(new RunnerMessage.Declined(
                job.uuid(), job.lease(), code, "could not prepare: runc: exec format error"));
        runner.expect(ServerMessage.Ack.class);
    }

    private static void complete(TestRunner runner, ClaimedJob job) {
        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        runner.expect(ServerMessage.Ack.class);
        runner.send(new RunnerMessage.Completed(
                job.uuid(), job.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
        runner.expect(ServerMessage.Ack.class);
    }

    private Runner stored(RunnerHandle h) {
        return server.store.runners().findRunner(h.runner().id()).orElseThrow();
    }

    @Test
    void aRunnerWhoseExecutorAlwaysFailsIsQuarantinedWhileAHealthyOneFinishesTheQueue() {
        Spec lonely = server.spec("lonely");
        RunnerHandle flakyHandle = server.runner(spec, lonely);
        RunnerHandle healthyHandle = server.runner(spec);
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 5; i++) jobs.add(server.submit(spec));

        // Idle first, the flaky runner takes job after job and fails each one.
        TestRunner flaky = connect(flakyHandle);
        for (int i = 0; i < THRESHOLD; i++) {
            assertThat(stored(flakyHandle).isQuarantined())
                    .as("quarantined after %d failures", i)
                    .isFalse();
            decline(flaky, claim(flaky), DeclineCode.EXECUTOR_ERROR);
        }
        Runner quarantined = stored(flakyHandle);
        assertThat(quarantined.isQuarantined()).isTrue();
        assertThat(quarantined.quarantined())
                .isEqualTo(server.clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MICROS));
        assertThat(quarantined.quarantineReason())
                .contains("3 infrastructure failures")
                .contains("declined executor_error");
        assertThat(server.store
                        .nodes()
                        .clusterCounts("n", server.clock.instant())
                        .quarantinedRunners())
                .isEqualTo(1);
        assertThat(server.metrics().scrape()).contains("baton_runner_quarantines_total 1.0");

        // It asks for work and gets none; the healthy runner finishes the whole queue, the
        // declined jobs included (the ordinary decline rule sends them to the other runner).
        flaky.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1));
        TestRunner healthy = connect(healthyHandle);
        for (int i = 0; i < jobs.size(); i++) complete(healthy, claim(healthy));
        for (Job j : jobs)
            assertThat(server.store.runs().findJob(j.uuid()).orElseThrow().status())
                    .isIn(JobStatus.COMPLETED, JobStatus.PROCESSED);
        flaky.expectSilence(Duration.ofMillis(200));

        // A job only the quarantined runner could take says why it waits.
        Job waiting = server.submit(lonely);
        var status = server.channel()
                .status(server.store.runs().findJob(waiting.uuid()).orElseThrow())
                .orElseThrow();
        assertThat(status.reason().code()).isEqualTo("runners_quarantined");
        flaky.expectSilence(Duration.ofMillis(100));

        // Released, it takes work again at once; the failures before the release do not count again.
        Runner released =
                server.store.runners().releaseRunner(flakyHandle.runner().id(), server.clock.instant());
        assertThat(released.isQuarantined()).isFalse();
        assertThat(released.quarantineReason()).isNull();
        Job after = server.submit(lonely);
        ClaimedJob first = flaky.expect(ServerMessage.Job.class).job();
        assertThat(List.of(waiting.uuid(), after.uuid())).contains(first.uuid());
        decline(flaky, first, DeclineCode.EXECUTOR_ERROR);
        assertThat(stored(flakyHandle).isQuarantined())
                .as("one failure since the release")
                .isFalse();
        assertThat(server.store
                        .nodes()
                        .clusterCounts("n", server.clock.instant())
                        .quarantinedRunners())
                .isZero();
    }

    @Test
    void onlyInfrastructureFailuresInsideTheWindowCount() {
        RunnerHandle handle = server.runner(spec);
        for (int i = 0; i < 8; i++) server.submit(spec);
        TestRunner runner = connect(handle);

        // The job's own failure and declines about the job or the machine's noise are not the runner's fault.
        ClaimedJob failing = claim(runner);
        runner.send(new RunnerMessage.Running(failing.uuid(), failing.lease()));
        runner.expect(ServerMessage.Ack.class);
        runner.send(new RunnerMessage.Failed(
                failing.uuid(), failing.lease(), List.of(new IterationResult(3, "boom", "", Map.of())), "exit code 3"));
        runner.expect(ServerMessage.Ack.class);
        decline(runner, claim(runner), DeclineCode.NOISY_MACHINE);
        decline(runner, claim(runner), DeclineCode.IMAGE_REFUSED);
        decline(runner, claim(runner), DeclineCode.NO_COMMAND);
        assertThat(server.store
                        .runners()
                        .findRunner(handle.runner().id())
                        .orElseThrow()
                        .isQuarantined())
                .isFalse();

        // Two real failures, then a quiet spell longer than the window: the third is alone in it.
        decline(runner, claim(runner), DeclineCode.PULL_FAILED);
        decline(runner, claim(runner), DeclineCode.VM_BOOT_FAILED);
        server.advance(WINDOW.plusSeconds(1));
        decline(runner, claim(runner), DeclineCode.UNPACK_FAILED);
        assertThat(server.store
                        .runners()
                        .findRunner(handle.runner().id())
                        .orElseThrow()
                        .isQuarantined())
                .isFalse();
        // Two more inside the window make three.
        decline(runner, claim(runner), DeclineCode.EXECUTOR_ERROR);
        assertThat(server.store
                        .runners()
                        .findRunner(handle.runner().id())
                        .orElseThrow()
                        .isQuarantined())
                .isFalse();
        server.submit(spec);
        decline(runner, claim(runner), DeclineCode.EXECUTOR_ERROR);
        assertThat(server.store
                        .runners()
                        .findRunner(handle.runner().id())
                        .orElseThrow()
                        .quarantineReason())
                .startsWith("3 infrastructure failures within 1m (threshold 3; latest: declined executor_error)");
    }

    @Test
    void lostRunnersAndUnansweredClaimsCount() throws Exception {
        // A window longer than the heartbeat timeout: each loss is only seen once that timeout passed.
        server.close();
        Path other = java.nio.file.Files.createDirectories(dataDir.resolve("lost"));
        server = new ChannelFixture(databaseUrl(other), other, c -> c.withQuarantine(2, Duration.ofHours(1)));
        spec = server.spec("bare metal");
        RunnerHandle handle = server.runner(spec);
        Job started = server.submit(spec);
        server.submit(spec);

        TestRunner first = server.connect(handle);
        ClaimedJob running = claim(first);
        first.send(new RunnerMessage.Running(running.uuid(), running.lease()));
        first.expect(ServerMessage.Ack.class);
        first.crash();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> server.channel().sessions().size() == 0);
        server.advance(ChannelFixture.HEARTBEAT_TIMEOUT.plusSeconds(1));
        assertThat(server.store.runs().findJob(started.uuid()).orElseThrow().status())
                .isEqualTo(JobStatus.FAILED);
        assertThat(stored(handle).isQuarantined()).isFalse();

        TestRunner second = server.connect(handle);
        claim(second);
        second.crash();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> server.channel().sessions().size() == 0);
        server.advance(ChannelFixture.HEARTBEAT_TIMEOUT.plusSeconds(1));
        // Claimed and never started: its acceptance deadline (30 s) passes before the heartbeat timeout.
        assertThat(stored(handle).quarantineReason())
                .isEqualTo("2 infrastructure failures within 1h (threshold 2; latest: accept_timeout)");
    }

    /** Quarantines the runner: THRESHOLD jobs claimed and declined with executor_error. */
    private TestRunner quarantined(RunnerHandle handle) {
        for (int i = 0; i < THRESHOLD; i++) server.submit(spec);
        TestRunner runner = connect(handle);
        for (int i = 0; i < THRESHOLD; i++) decline(runner, claim(runner), DeclineCode.EXECUTOR_ERROR);
        assertThat(stored(handle).isQuarantined()).isTrue();
        return runner;
    }

    @Test
    void aCanaryThatPassesOnTheQuarantinedRunnerLiftsItsQuarantine() {
        RunnerHandle flakyHandle = server.runner(spec);
        TestRunner flaky = quarantined(flakyHandle);
        TestRunner healthy = connect(server.runner(spec));
        for (int i = 0; i < THRESHOLD; i++) complete(healthy, claim(healthy)); // the declined jobs, elsewhere
        healthy.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1));
        healthy.expectSilence(Duration.ofMillis(100));

        // The canary goes to the quarantined runner, never to the healthy one that waits too.
        Job canary = server.submitCanary(spec, flakyHandle.runner().id());
        ClaimedJob claimed = claim(flaky);
        assertThat(claimed.uuid()).isEqualTo(canary.uuid());
        healthy.expectSilence(Duration.ofMillis(100));
        assertThat(stored(flakyHandle).isQuarantined())
                .as("not before it passed")
                .isTrue();
        complete(flaky, claimed);
        assertThat(stored(flakyHandle).isQuarantined()).isFalse();

        // Released, it takes ordinary work again.
        Job next = server.submit(spec);
        ServerMessage.Job got = healthy.expect(ServerMessage.Job.class); // the healthy one waited first
        assertThat(got.job().uuid()).isEqualTo(next.uuid());
        Job another = server.submit(spec);
        assertThat(claim(flaky).uuid()).isEqualTo(another.uuid());
    }

    @Test
    void aCanaryThatFailsLeavesTheRunnerQuarantined() {
        RunnerHandle flakyHandle = server.runner(spec);
        TestRunner flaky = quarantined(flakyHandle);
        Job canary = server.submitCanary(spec, flakyHandle.runner().id());
        ClaimedJob claimed = claim(flaky);
        assertThat(claimed.uuid()).isEqualTo(canary.uuid());
        flaky.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        flaky.expect(ServerMessage.Ack.class);
        flaky.send(new RunnerMessage.Completed(
                claimed.uuid(), claimed.lease(), List.of(new IterationResult(1, "", "segfault", Map.of()))));
        flaky.expect(ServerMessage.Ack.class);
        assertThat(stored(flakyHandle).isQuarantined()).isTrue();
        // Still quarantined: an ordinary job does not go to it.
        server.submit(spec);
        flaky.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1));
        flaky.expectSilence(Duration.ofMillis(200));

        // Nor does a failed attempt lift it.
        Job second = server.submitCanary(spec, flakyHandle.runner().id());
        ClaimedJob again = flaky.expect(ServerMessage.Job.class).job();
        assertThat(again.uuid()).isEqualTo(second.uuid());
        flaky.send(new RunnerMessage.Running(again.uuid(), again.lease()));
        flaky.expect(ServerMessage.Ack.class);
        flaky.send(new RunnerMessage.Failed(again.uuid(), again.lease(), List.of(), "exit 2"));
        flaky.expect(ServerMessage.Ack.class);
        assertThat(stored(flakyHandle).isQuarantined()).isTrue();
    }
}

package dev.baton.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.server.store.Job;
import dev.baton.server.store.Spec;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * At most one claim per set of specs in flight on a node (docs/decisions/0022-one-claim-in-flight-per-spec-set.md),
 * once per dialect, over real WebSockets and a real store. A claim is held in mid-flight by a gate
 * in front of the store; what other pumps do meanwhile is counted by the fixture's store wrapper
 * (claim transactions, and those that found no job). The background fallback sweep is held for
 * the whole test, so whatever reaches a runner was brought by the pumps alone, and the test
 * clock never moves.
 */
abstract class OneClaimInFlightContract {
    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    AutoCloseable sweepHeld;
    final List<TestRunner> connections = new ArrayList<>();
    /** Own threads: the common pool may have a single one on a 2-core machine, taken by the held submission. */
    final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() throws Exception {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("x86 small");
        sweepHeld = server.holdFallbackSweep();
    }

    @AfterEach
    void stop() throws Exception {
        threads.shutdownNow();
        connections.forEach(TestRunner::crash);
        sweepHeld.close();
        server.close();
    }

    private TestRunner waiting(RunnerHandle handle) {
        TestRunner runner = server.connect(handle);
        connections.add(runner);
        runner.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class); // the ready was handled, its pump included
        return runner;
    }

    /** Holds the next claim that includes {@code runner}, started by submitting a job; returns once it waits at the gate. */
    private CompletableFuture<Job> submitHeldAt(ChannelFixture.ClaimGate gate, RunnerHandle runner) throws InterruptedException {
        server.claimGates.put(runner.runner().id(), gate);
        CompletableFuture<Job> job = CompletableFuture.supplyAsync(() -> server.submit(spec), threads);
        assertThat(gate.entered().await(30, TimeUnit.SECONDS)).as("the claim for the submitted job started").isTrue();
        return job;
    }

    @Test
    void aRunnerReadyWhileAClaimForItsSpecsIsInFlightDoesNotStartAnEmptyOne() throws Exception {
        RunnerHandle first = server.runner(spec);
        RunnerHandle second = server.runner(spec);
        TestRunner firstRunner = waiting(first);
        ChannelFixture.ClaimGate gate = new ChannelFixture.ClaimGate();
        CompletableFuture<Job> job = submitHeldAt(gate, first);

        // Without coalescing, this ready's own pump claims the same job concurrently; one of the two claims is empty.
        TestRunner secondRunner = waiting(second);
        int readsBefore = server.pendingReads.get();
        gate.release().countDown();

        assertThat(firstRunner.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.get(30, TimeUnit.SECONDS).uuid());
        // The claim again for the second runner asks the store first, and finds nothing to claim.
        await().untilAsserted(() -> assertThat(server.pendingReads.get()).isGreaterThan(readsBefore));
        assertThat(server.claims).as("claim transactions").hasValue(1);
        assertThat(server.emptyClaims).as("claims that found no job").hasValue(0);

        // The second runner still waits, and the next job is its own.
        Job next = server.submit(spec);
        assertThat(secondRunner.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(next.uuid());
        assertThat(server.emptyClaims).hasValue(0);
    }

    @Test
    void aJobCommittedWhileAClaimIsInFlightReachesAnIdleRunnerWithoutTheFallbackSweep() throws Exception {
        RunnerHandle first = server.runner(spec);
        RunnerHandle second = server.runner(spec);
        TestRunner firstRunner = waiting(first);
        ChannelFixture.ClaimGate gate = new ChannelFixture.ClaimGate();
        CompletableFuture<Job> held = submitHeldAt(gate, first);
        TestRunner secondRunner = waiting(second);

        // Its pump finds the claim for this spec in flight and leaves the job to it (the submission returns at once).
        Job committedMeanwhile = server.submit(spec);
        gate.release().countDown();
        Job heldJob = held.get(30, TimeUnit.SECONDS);

        Set<JobUuid> handedOut = Set.of(firstRunner.expect(ServerMessage.Job.class).job().uuid(),
                secondRunner.expect(ServerMessage.Job.class).job().uuid());
        assertThat(handedOut).containsExactlyInAnyOrder(heldJob.uuid(), committedMeanwhile.uuid());
        assertThat(server.emptyClaims).as("claims that found no job").hasValue(0);
    }

    @Test
    void manyPumpsDuringOneClaimMakeOneMoreClaimAndHandEachJobOutOnce() throws Exception {
        int runners = 8;
        RunnerHandle first = server.runner(spec);
        List<RunnerHandle> others = new ArrayList<>();
        for (int i = 1; i < runners; i++) others.add(server.runner(spec));
        List<TestRunner> connected = new ArrayList<>();
        connected.add(waiting(first));
        ChannelFixture.ClaimGate gate = new ChannelFixture.ClaimGate();
        CompletableFuture<Job> held = submitHeldAt(gate, first);

        // Runners ready and jobs submitted at once, all while the first claim is held: each is a pump for the same spec.
        List<Future<TestRunner>> readies = new ArrayList<>();
        for (RunnerHandle r : others) readies.add(threads.submit(() -> waiting(r)));
        List<Future<Job>> submissions = new ArrayList<>();
        for (int i = 1; i < runners; i++) submissions.add(threads.submit(() -> server.submit(spec)));
        for (Future<TestRunner> r : readies) connected.add(r.get(30, TimeUnit.SECONDS));
        Set<JobUuid> submitted = new HashSet<>();
        for (Future<Job> s : submissions) submitted.add(s.get(30, TimeUnit.SECONDS).uuid());
        assertThat(server.claims).as("claims while the first is in flight").hasValue(1);

        gate.release().countDown();
        submitted.add(held.get(30, TimeUnit.SECONDS).uuid());

        List<JobUuid> handedOut = new ArrayList<>();
        for (TestRunner r : connected) handedOut.add(r.expect(ServerMessage.Job.class).job().uuid());
        assertThat(handedOut).as("one job per runner, each job once").doesNotHaveDuplicates();
        assertThat(new HashSet<>(handedOut)).isEqualTo(submitted);
        assertThat(server.claims).as("the held claim and one claim again for everyone who came meanwhile").hasValue(2);
        assertThat(server.emptyClaims).as("claims that found no job").hasValue(0);
    }
}

package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Job;
import dev.baton.store.Spec;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13: the dispatcher holds no lock across I/O. While one runner's claim is held in
 * mid-flight (a gate in front of the store), another runner of another spec still gets its job;
 * and a job submitted for the held runner's spec meanwhile is not lost when the claim goes on.
 */
class DispatchConcurrencyTest {
    @TempDir
    Path dataDir;

    ChannelFixture server;
    /** Own threads: the common pool may have a single one on a 2-core machine, taken by the held submission. */
    final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void close() {
        threads.shutdownNow();
        if (server != null) server.close();
    }

    private static void waitFor(TestRunner runner) {
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);
    }

    @Test
    void aClaimInFlightForOneRunnerDoesNotHoldUpAnother() throws Exception {
        server = new ChannelFixture(null, dataDir);
        Spec slow = server.spec("slow");
        Spec fast = server.spec("fast");
        ChannelFixture.RunnerHandle held = server.runner(slow);
        ChannelFixture.RunnerHandle free = server.runner(fast);
        try (TestRunner heldRunner = server.connect(held);
                TestRunner freeRunner = server.connect(free)) {
            waitFor(heldRunner);
            waitFor(freeRunner);
            ChannelFixture.ClaimGate gate = new ChannelFixture.ClaimGate();
            server.claimGates.put(held.runner().id(), gate);

            CompletableFuture<Job> first = CompletableFuture.supplyAsync(() -> server.submit(slow), threads);
            assertThat(gate.entered().await(30, TimeUnit.SECONDS))
                    .as("the held runner's claim started")
                    .isTrue();

            try {
                // Async: with a dispatcher lock held across the claim, this submission's own
                // dispatch would wait for the gate, and the runner's expect below fails instead.
                CompletableFuture<Job> other = CompletableFuture.supplyAsync(() -> server.submit(fast), threads);
                ClaimedJob got = freeRunner.expect(ServerMessage.Job.class).job();
                assertThat(got.uuid()).isEqualTo(other.get(30, TimeUnit.SECONDS).uuid());
            } finally {
                gate.release().countDown();
            }
            Job slowJob = first.get(30, TimeUnit.SECONDS);
            assertThat(heldRunner.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(slowJob.uuid());
        }
    }
}

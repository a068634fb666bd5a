package dev.baton.dispatch.pools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Job;
import dev.baton.store.JobLabels;
import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.PoolMachineState;
import dev.baton.store.PoolSettings;
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
 * The production observer (issue 43) on a real server and store, once per dialect: what it says
 * of a pool machine's runner as that runner really connects, takes its job and ends it over the
 * channel, and which pending jobs it counts as waiting for the pool. The provider records; the
 * runners are the test's WebSocket clients holding the keys the scaler handed the provider.
 */
abstract class StoreObserverContractTest {
    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    final RecordingProvider provider = new RecordingProvider();
    final List<TestRunner> connections = new ArrayList<>();
    StoreObserver observer;

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("pooled");
        observer = new StoreObserver(server.store, id -> false);
    }

    @AfterEach
    void stop() {
        connections.forEach(TestRunner::crash);
        server.close();
    }

    private Pool pool(Map<String, String> labels, int minIdle, int max) {
        return server.store
                .pools()
                .createPool(
                        "p",
                        new PoolSettings(
                                spec.id(),
                                labels,
                                minIdle,
                                max,
                                Duration.ofSeconds(60),
                                Duration.ofSeconds(30),
                                "recording",
                                "{}"),
                        server.clock.instant());
    }

    private PoolScaler scaler() {
        return new PoolScaler(
                server.store, Map.of("recording", provider), observer, server.clock, "a", "http://127.0.0.1:1");
    }

    private TestRunner connect(RunnerHandle handle) {
        TestRunner r = server.connect(handle);
        connections.add(r);
        return r;
    }

    private static RunnerMessage.Ready ready() {
        return new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1, null, null, null, Map.of());
    }

    private List<Long> waiting(Pool pool) {
        return observer.waitingJobs(pool, server.clock.instant());
    }

    @Test
    void aMachinesRunnerIsNotConnectedThenIdleThenBusyThenSpentAndItsMachineIsStopped() {
        Pool pool = pool(Map.of(), 0, 1);
        Job job = server.submit(spec);
        List<Duration> boots = new java.util.concurrent.CopyOnWriteArrayList<>();
        PoolScaler scaler = scaler().onRegistered((p, boot) -> boots.add(boot));
        scaler.runOnce();
        PoolMachine machine = server.store.pools().liveMachines(pool.id()).getFirst();
        assertThat(observer.observe(machine).phase()).isEqualTo(RunnerPhase.NOT_CONNECTED);
        server.advance(Duration.ofSeconds(3));

        var start = provider.starts.getFirst();
        Runner runner = server.store.runners().findRunner(machine.runnerId()).orElseThrow();
        assertThat(runner.slug().value()).isEqualTo(start.runner());
        TestRunner agent = connect(new RunnerHandle(runner, start.key()));
        agent.welcome();
        assertThat(observer.observe(machine).phase()).isEqualTo(RunnerPhase.IDLE);

        agent.send(ready());
        ClaimedJob took = agent.expect(ServerMessage.Job.class).job();
        assertThat(took.uuid()).isEqualTo(job.uuid());
        MachineView busy = observer.observe(machine);
        assertThat(busy.phase()).isEqualTo(RunnerPhase.BUSY);
        assertThat(busy.job()).isEqualTo(job.id());
        scaler.runOnce();
        assertThat(server.store.pools().liveMachines(pool.id()))
                .singleElement()
                .satisfies(m -> assertThat(m.state()).isEqualTo(PoolMachineState.BUSY));
        assertThat(boots).containsExactly(Duration.ofSeconds(3)); // the boot time the metrics record

        agent.send(new RunnerMessage.Running(took.uuid(), took.lease()));
        agent.expect(ServerMessage.Ack.class);
        agent.send(new RunnerMessage.Completed(
                took.uuid(), took.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
        agent.expect(ServerMessage.Ack.class);
        assertThat(observer.observe(machine).phase()).isEqualTo(RunnerPhase.SPENT);
        scaler.runOnce();
        assertThat(server.store.pools().liveMachines(pool.id())).isEmpty();
        assertThat(provider.stops).containsExactly("m-1");
        assertThat(provider.starts).hasSize(1); // the ended job starts nothing
    }

    @Test
    void anIdleMachineWhoseRunnerDisconnectedIsStopped() {
        Pool pool = pool(Map.of(), 1, 1);
        PoolScaler scaler = scaler();
        scaler.runOnce();
        PoolMachine machine = server.store.pools().liveMachines(pool.id()).getFirst();
        var start = provider.starts.getFirst();
        Runner runner = server.store.runners().findRunner(machine.runnerId()).orElseThrow();
        TestRunner agent = connect(new RunnerHandle(runner, start.key()));
        agent.welcome();
        scaler.runOnce();
        assertThat(server.store.pools().liveMachines(pool.id()))
                .singleElement()
                .satisfies(m -> assertThat(m.state()).isEqualTo(PoolMachineState.IDLE));

        agent.close();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (observer.observe(machine).phase() != RunnerPhase.NOT_CONNECTED && System.nanoTime() < deadline)
            Thread.onSpinWait();
        scaler.runOnce();
        assertThat(provider.stops).containsExactly("m-1");
        // min_idle 1: a fresh one replaces it in the same pass
        assertThat(server.store.pools().liveMachines(pool.id()))
                .singleElement()
                .satisfies(m -> assertThat(m.id()).isNotEqualTo(machine.id()));
    }

    @Test
    void theJobsThatWaitLeaveOutThoseAMachineOrAnIdleRunnerCoversOrThatANewMachineCouldNotRun() {
        Pool pool = pool(Map.of("pool", "p"), 0, 4);
        Job plain = server.submit(spec);
        Job labelled = server.submit(spec, new JobLabels(Map.of("pool", "p"), Map.of()));
        Job elsewhere = server.submit(spec, new JobLabels(Map.of("gpu", "yes"), Map.of()));
        Job timedOut = server.submitWithQueueTimeout(spec, 5);
        assertThat(waiting(pool)).containsExactly(plain.id(), labelled.id(), timedOut.id());
        assertThat(waiting(pool)).doesNotContain(elsewhere.id());

        // Past its queue timeout a job waits for nothing a machine could give.
        server.advance(Duration.ofSeconds(6));
        assertThat(waiting(pool)).containsExactly(plain.id(), labelled.id());

        // Reserved for a live single-job runner: its machine covers it; archived, it waits again.
        RunnerKey key = RunnerKey.generate();
        Runner bound = server.store
                .runners()
                .createEphemeralRunner("bound", Slug.fromName("bound"), key.hash(), plain.id(), server.clock.instant());
        assertThat(waiting(pool)).containsExactly(labelled.id());
        server.store.runners().updateRunner(bound.id(), null, null, true, server.clock.instant());
        assertThat(waiting(pool)).containsExactly(plain.id(), labelled.id());

        // A connected idle runner of the spec takes the first: only the rest wait for a machine.
        RunnerHandle idle = server.runner(spec);
        connect(idle).welcome();
        assertThat(waiting(pool)).containsExactly(labelled.id());

        // An archived spec: nothing waits.
        server.store.specs().updateSpec(spec.id(), null, null, true, server.clock.instant());
        assertThat(waiting(pool)).isEmpty();
    }

    @Test
    void aWaitingJobsPendingReasonNamesThePoolThatStartsItsMachineAndThePoolsBackOff() {
        pool(Map.of(), 0, 2);
        Job job = server.submit(spec);
        var before = server.channel().status(server.job(job)).orElseThrow().reason();
        assertThat(before.code()).isEqualTo("pool_starting");
        assertThat(before.message()).contains("pool 'p'");

        provider.failStarts = "quota exceeded in zone b";
        scaler().runOnce();
        var backing = server.channel().status(server.job(job)).orElseThrow().reason();
        assertThat(backing.code()).isEqualTo("pool_backoff");
        assertThat(backing.message()).contains("pool 'p'").contains("quota exceeded in zone b");
        assertThat(backing.until()).isEqualTo(server.clock.instant().plus(PoolScaler.FIRST_BACKOFF));

        server.advance(PoolScaler.FIRST_BACKOFF);
        assertThat(server.channel()
                        .status(server.job(job))
                        .orElseThrow()
                        .reason()
                        .code())
                .isEqualTo("pool_starting");
    }
}

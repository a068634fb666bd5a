package dev.baton.dispatch.pools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.job.JobStatus;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.store.Job;
import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.PoolMachineState;
import dev.baton.store.PoolSettings;
import dev.baton.store.Spec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scaler (issue 43) against the real store of a real server, an injected clock and a
 * recording provider, once per dialect: which machines it starts and stops, and when. What the
 * server knows of each machine's runner is set by the test ({@link #phases}); the jobs that wait
 * are the test's pending jobs that no live machine is bound to.
 */
abstract class PoolScalerContractTest {
    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    final RecordingProvider provider = new RecordingProvider();
    /** The phase of each machine's runner, by machine row id; absent: not connected. */
    final Map<Long, RunnerPhase> phases = new HashMap<>();

    final List<Job> jobs = new ArrayList<>();

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("bare metal");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private final PoolScaler.Observer observer = new PoolScaler.Observer() {
        @Override
        public MachineView observe(PoolMachine machine) {
            return new MachineView(
                    machine, phases.getOrDefault(machine.id(), RunnerPhase.NOT_CONNECTED), machine.jobId());
        }

        @Override
        public List<Long> waitingJobs(Pool pool, java.time.Instant now) {
            Set<Long> covered = new HashSet<>();
            for (PoolMachine m : server.store.pools().liveMachines(pool.id()))
                if (m.jobId() != null) covered.add(m.jobId());
            return jobs.stream()
                    .map(server::job)
                    .filter(j -> j.status() == JobStatus.PENDING && !covered.contains(j.id()))
                    .map(Job::id)
                    .toList();
        }
    };

    private PoolScaler scaler(String node) {
        return new PoolScaler(
                server.store, Map.of("recording", provider), observer, server.clock, node, "http://127.0.0.1:1");
    }

    private Pool pool(int minIdle, int max) {
        return server.store
                .pools()
                .createPool(
                        "burst",
                        new PoolSettings(
                                spec.id(),
                                Map.of("pool", "burst"),
                                minIdle,
                                max,
                                Duration.ofSeconds(60),
                                Duration.ofSeconds(30),
                                "recording",
                                "{\"image\": \"runner\"}"),
                        server.clock.instant());
    }

    private List<PoolMachine> live(Pool pool) {
        return server.store.pools().liveMachines(pool.id());
    }

    private Pool reread(Pool pool) {
        return server.store.pools().findPool(pool.slug()).orElseThrow();
    }

    private void submit(int n) {
        for (int i = 0; i < n; i++) jobs.add(server.submit(spec));
    }

    @Test
    void aBurstStartsOneBoundMachinePerWaitingJobUpToMaxAndNoMore() {
        Pool pool = pool(0, 4);
        submit(6);
        PoolScaler scaler = scaler("a");
        assertThat(scaler.runOnce()).isTrue();
        List<PoolMachine> machines = live(pool);
        assertThat(machines).hasSize(4).allMatch(m -> m.state() == PoolMachineState.STARTING);
        // each bound to its own job, the oldest first; each runner single-job and bound to it
        assertThat(machines.stream().map(PoolMachine::jobId).toList())
                .containsExactly(
                        jobs.get(0).id(),
                        jobs.get(1).id(),
                        jobs.get(2).id(),
                        jobs.get(3).id());
        for (PoolMachine m : machines) {
            var runner = server.store.runners().findRunner(m.runnerId()).orElseThrow();
            assertThat(runner.ephemeral()).isTrue();
            assertThat(runner.boundJob()).isEqualTo(m.jobId());
            assertThat(server.store.runners().runnerLabels(runner.id()).effective())
                    .containsEntry("pool", "burst");
        }
        assertThat(provider.starts).hasSize(4);
        assertThat(provider.starts.getFirst().key()).startsWith("baton_runner_");
        assertThat(provider.starts.getFirst().config()).containsEntry("image", "runner");
        assertThat(provider.starts.getFirst().toString())
                .doesNotContain(provider.starts.getFirst().key());

        // Nothing changed: nothing more is started.
        scaler.runOnce();
        assertThat(provider.starts).hasSize(4);
    }

    @Test
    void aPendingJobWakesTheScalerOnlyForASpecAPoolServedAtTheLastPass() {
        PoolScaler scaler = scaler("a");
        assertThat(scaler.runOnce()).as("no pool: nothing to do").isFalse();
        assertThat(scaler.mayServe(spec.id())).isFalse();
        pool(0, 4);
        assertThat(scaler.mayServe(spec.id()))
                .as("seen at the next pass, not before")
                .isFalse();
        scaler.runOnce();
        assertThat(scaler.mayServe(spec.id())).isTrue();
        assertThat(scaler.mayServe(spec.id() + 1000)).isFalse();
    }

    @Test
    void machinesStartingOrIdleNeverExceedTheWaitingJobsPlusMinIdle() {
        Pool pool = pool(1, 4);
        PoolScaler scaler = scaler("a");
        scaler.runOnce();
        assertThat(live(pool))
                .singleElement()
                .satisfies(m -> assertThat(m.jobId()).isNull());
        submit(2);
        scaler.runOnce();
        assertThat(live(pool)).hasSize(3); // two bound, one for min_idle
        scaler.runOnce();
        assertThat(live(pool)).hasSize(3);
    }

    @Test
    void aMachineThatDoesNotRegisterWithinItsBootTimeoutIsStoppedAndCountedAndItsJobIsFreed() {
        Pool pool = pool(0, 1);
        submit(1);
        PoolScaler scaler = scaler("a");
        scaler.runOnce();
        PoolMachine first = live(pool).getFirst();
        server.advance(Duration.ofSeconds(29));
        scaler.runOnce();
        assertThat(provider.stops).isEmpty();
        server.advance(Duration.ofSeconds(1));
        scaler.runOnce();
        assertThat(provider.stops).containsExactly(first.providerId() == null ? "m-1" : first.providerId());
        var ended = server.store.pools().machines(pool.id(), 10).stream()
                .filter(m -> m.id() == first.id())
                .findFirst()
                .orElseThrow();
        assertThat(ended.state()).isEqualTo(PoolMachineState.FAILED);
        assertThat(ended.reason()).contains("boot_timeout");
        assertThat(reread(pool).failedStarts()).isEqualTo(1);
        assertThat(server.store
                        .runners()
                        .findRunner(first.runnerId())
                        .orElseThrow()
                        .isArchived())
                .isTrue();
        // The job waits still, and a new machine is started for it in the same pass.
        assertThat(live(pool)).singleElement().satisfies(m -> {
            assertThat(m.jobId()).isEqualTo(jobs.getFirst().id());
            assertThat(m.id()).isNotEqualTo(first.id());
        });
    }

    @Test
    void aFailingProviderBacksOffWithTheReasonOnThePool() {
        Pool pool = pool(0, 4);
        submit(3);
        provider.failStarts = "quota exceeded in zone b";
        PoolScaler scaler = scaler("a");
        scaler.runOnce();
        Pool backing = reread(pool);
        assertThat(backing.reason()).contains("quota exceeded in zone b").contains("retrying in 5 s");
        assertThat(backing.backoffUntil()).isEqualTo(server.clock.instant().plus(PoolScaler.FIRST_BACKOFF));
        assertThat(backing.failedStarts()).isEqualTo(1);
        assertThat(live(pool)).isEmpty(); // one attempt, ended failed, its runner archived

        server.advance(Duration.ofSeconds(4));
        scaler.runOnce();
        assertThat(reread(pool).failedStarts()).isEqualTo(1); // not tried while backing off

        server.advance(Duration.ofSeconds(1));
        scaler.runOnce(); // fails again: twice as long
        assertThat(reread(pool).backoffUntil()).isEqualTo(server.clock.instant().plus(Duration.ofSeconds(10)));

        provider.failStarts = null;
        server.advance(Duration.ofSeconds(10));
        scaler.runOnce();
        assertThat(live(pool)).hasSize(3);
        assertThat(reread(pool).reason()).isNull();
        assertThat(reread(pool).backoffUntil()).isNull();
    }

    @Test
    void aMachineIsStoppedAfterItsJobAndAnIdleOneBeyondMinIdleAfterIdleTimeout() {
        Pool pool = pool(1, 4);
        submit(1);
        PoolScaler scaler = scaler("a");
        scaler.runOnce();
        PoolMachine bound =
                live(pool).stream().filter(m -> m.jobId() != null).findFirst().orElseThrow();
        PoolMachine spare =
                live(pool).stream().filter(m -> m.jobId() == null).findFirst().orElseThrow();
        phases.put(bound.id(), RunnerPhase.BUSY);
        phases.put(spare.id(), RunnerPhase.IDLE);
        scaler.runOnce();
        assertThat(live(pool)).extracting(PoolMachine::state).contains(PoolMachineState.BUSY, PoolMachineState.IDLE);

        server.cancel(jobs.getFirst()); // its job ended
        phases.put(bound.id(), RunnerPhase.SPENT);
        scaler.runOnce();
        assertThat(live(pool)).singleElement().satisfies(m -> assertThat(m.id()).isEqualTo(spare.id()));
        assertThat(provider.stops).containsExactly("m-1");

        // min_idle 1: the spare stays however long it idles; with min_idle 0 it goes after idle_timeout.
        server.advance(Duration.ofMinutes(5));
        scaler.runOnce();
        assertThat(live(pool)).hasSize(1);
        server.store
                .pools()
                .updatePool(
                        pool.id(),
                        new PoolSettings(
                                spec.id(),
                                Map.of(),
                                0,
                                4,
                                Duration.ofSeconds(60),
                                Duration.ofSeconds(30),
                                "recording",
                                "{}"),
                        server.clock.instant());
        scaler.runOnce();
        assertThat(live(pool)).isEmpty();
        assertThat(provider.stops).containsExactly("m-1", "m-2");
    }

    @Test
    void aShrunkPoolStopsItsNewestMachinesThatHaveNoJob() {
        Pool pool = pool(3, 3);
        PoolScaler scaler = scaler("a");
        scaler.runOnce();
        assertThat(live(pool)).hasSize(3);
        server.store
                .pools()
                .updatePool(
                        pool.id(),
                        new PoolSettings(
                                spec.id(),
                                Map.of(),
                                1,
                                1,
                                Duration.ofSeconds(60),
                                Duration.ofSeconds(30),
                                "recording",
                                "{}"),
                        server.clock.instant());
        scaler.runOnce();
        assertThat(live(pool))
                .singleElement()
                .satisfies(m -> assertThat(m.providerId()).isEqualTo("m-1"));
        assertThat(provider.stops).containsExactlyInAnyOrder("m-2", "m-3");
    }

    @Test
    void oneScalerAcrossNodesAndTheNextAdoptsTheMachinesADeadOneLeft() {
        Pool pool = pool(0, 2);
        submit(2);
        PoolScaler a = scaler("node-a");
        PoolScaler b = scaler("node-b");
        assertThat(a.runOnce()).isTrue();
        assertThat(b.runOnce()).isFalse();
        assertThat(live(pool)).hasSize(2).allMatch(m -> m.node().equals("node-a"));

        // node-a dies; its lease runs out, node-b takes over and finds node-a's machines in the store.
        server.advance(PoolScaler.LEASE.plusSeconds(1));
        PoolMachine registered = live(pool).getFirst();
        phases.put(registered.id(), RunnerPhase.BUSY);
        assertThat(b.runOnce()).isTrue();
        assertThat(provider.starts).hasSize(2); // nothing duplicated
        server.advance(Duration.ofSeconds(30));
        assertThat(b.runOnce()).isTrue();
        // the one that never registered is stopped by node-b, which starts one for its job; the
        // busy one keeps its job
        assertThat(provider.stops).containsExactly("m-2");
        assertThat(live(pool)).hasSize(2).anySatisfy(m -> {
            assertThat(m.id()).isEqualTo(registered.id());
            assertThat(m.state()).isEqualTo(PoolMachineState.BUSY);
        });
        assertThat(live(pool)).anySatisfy(m -> {
            assertThat(m.node()).isEqualTo("node-b");
            assertThat(m.jobId()).isEqualTo(jobs.get(1).id());
        });
        assertThat(a.runOnce()).isFalse(); // back from the dead: node-b holds the lease
    }

    /**
     * A node that died inside a start (after the provider began it, before the scaler wrote the
     * id back) leaves a row with no id: the next scaler stops it at its boot timeout by the
     * machine's own id, and starts one machine for its job, not two.
     */
    @Test
    void aMachineWhoseNodeDiedBeforeItsIdWasWrittenIsStoppedByItsOwnId() {
        Pool pool = pool(0, 2);
        submit(1);
        PoolMachine unrecorded = server.store
                .pools()
                .addMachine(pool.id(), null, jobs.getFirst().id(), "node-a", server.clock.instant());
        PoolScaler b = scaler("node-b");
        assertThat(b.runOnce()).isTrue();
        assertThat(provider.starts).as("the job has its machine, booting").isEmpty();
        server.advance(Duration.ofSeconds(30));
        assertThat(b.runOnce()).isTrue();
        assertThat(provider.unrecorded).containsExactly(unrecorded.uuid().toString());
        assertThat(provider.stops).isEmpty();
        assertThat(server.store.pools().machines(pool.id(), 10))
                .filteredOn(m -> m.id() == unrecorded.id())
                .singleElement()
                .satisfies(m -> assertThat(m.state()).isEqualTo(PoolMachineState.FAILED));
        assertThat(provider.starts)
                .singleElement()
                .satisfies(r ->
                        assertThat(r.machine()).isNotEqualTo(unrecorded.uuid().toString()));
        assertThat(live(pool))
                .singleElement()
                .satisfies(m -> assertThat(m.jobId()).isEqualTo(jobs.getFirst().id()));
    }
}

package dev.baton.dispatch.pools;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.PoolMachineState;
import dev.baton.store.Runner;
import dev.baton.store.Store;
import dev.baton.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out {@link ScalerDecision} for every pool (issue 43): one pass per call, only on the
 * node that holds the scaler lease (a row in the store, so one scaler across nodes). Everything
 * it knows lives in the store (pools, machines, the runners made for them), so a node that takes
 * the lease over adopts the machines a dead node left: they are decided on like its own (boot
 * timeout, after their job, idle, shrink), and a stop the dead node began is repeated.
 *
 * <p>Starting a machine: a single-job runner (bound to the job it is for, or unbound for
 * {@code min_idle}) with the pool's spec and labels, its machine row ({@code starting}), then the
 * provider's start with the runner's one-time key. A failed start ends the machine
 * {@code failed}, archives its runner (so a job it was bound to is free again) and backs the pool
 * off, with the provider's reason on the pool. Stopping: the row to {@code stopping}, the
 * provider's stop (for a row without an id, which a node that died inside a start leaves, the
 * provider's {@code stopUnrecorded} by the machine's own id), the row to its end, the runner
 * archived.
 */
public final class PoolScaler {
    private static final Logger log = LoggerFactory.getLogger(PoolScaler.class);
    /** The first back-off after a failed start; doubles per failure in a row, up to {@link #MAX_BACKOFF}. */
    public static final Duration FIRST_BACKOFF = Duration.ofSeconds(5);

    public static final Duration MAX_BACKOFF = Duration.ofMinutes(5);
    /** How long the lease lasts; a pass renews it, so a scaler that died is replaced after this. */
    public static final Duration LEASE = Duration.ofSeconds(15);

    private static final Set<PoolMachineState> LIVE =
            EnumSet.of(PoolMachineState.STARTING, PoolMachineState.IDLE, PoolMachineState.BUSY);

    /** What the server knows that the pool rows do not: each machine's runner, and the jobs that wait. */
    public interface Observer {
        /** The phase of the machine's runner and, when busy, its job. */
        MachineView observe(PoolMachine machine);

        /** The jobs that wait for this pool (see {@link PoolQueue}), oldest claim order first. */
        List<Long> waitingJobs(Pool pool, Instant now);
    }

    private final Store store;
    private final Map<String, PoolProvider> providers;
    private final Observer observer;
    private final Clock clock;
    private volatile Set<Long> pooledSpecs = Set.of();
    private final String node;
    private final Supplier<String> server;
    private BiConsumer<Pool, Duration> onRegistered = (pool, boot) -> {};
    /** Failed starts in a row, per pool (reset by a start that succeeds). */
    private final Map<Long, Integer> failuresInARow = new HashMap<>();

    public PoolScaler(
            Store store,
            Map<String, PoolProvider> providers,
            Observer observer,
            Clock clock,
            String node,
            String server) {
        this(store, providers, observer, clock, node, () -> server);
    }

    /** With the server's URL as runners reach it, known only once the server listens. */
    public PoolScaler(
            Store store,
            Map<String, PoolProvider> providers,
            Observer observer,
            Clock clock,
            String node,
            Supplier<String> server) {
        this.store = store;
        this.providers = Map.copyOf(providers);
        this.observer = observer;
        this.clock = clock;
        this.node = node;
        this.server = server;
    }

    /**
     * One pass over every pool; false when there is no pool (no lease taken: a server without
     * pools writes nothing) or another node holds the scaler lease (nothing done).
     */
    public synchronized boolean runOnce() {
        List<Pool> pools = store.pools().listPools();
        pooledSpecs = pools.stream().map(p -> p.settings().specId()).collect(Collectors.toUnmodifiableSet());
        if (pools.isEmpty()) return false;
        Instant now = clock.instant();
        if (!store.pools().takeScalerLease(node, now, now.plus(LEASE))) return false;
        for (Pool pool : pools) {
            try {
                pass(pool);
            } catch (RuntimeException e) {
                log.error("pool {}: scaler pass failed", pool.slug(), e);
            }
        }
        return true;
    }

    /**
     * Whether a pool of this spec existed at the last pass. A pending job wakes the loop only then:
     * without it every submission would read the pools, on a server that has none, once more. A
     * pool created since is seen at the next pass, at most {@link ScalerLoop#EVERY} later.
     */
    public boolean mayServe(long specId) {
        return pooledSpecs.contains(specId);
    }

    private void pass(Pool pool) {
        Instant now = clock.instant();
        List<MachineView> machines = store.pools().liveMachines(pool.id()).stream()
                .map(observer::observe)
                .toList();
        PoolQueue queue = new PoolQueue(pool, machines, observer.waitingJobs(pool, now), now);
        for (ScalerAction action : ScalerDecision.decide(queue)) {
            switch (action) {
                case ScalerAction.Move m -> {
                    boolean moved = store.pools()
                            .moveMachine(
                                    m.machine().id(),
                                    EnumSet.of(PoolMachineState.STARTING, PoolMachineState.IDLE),
                                    m.to(),
                                    null,
                                    m.job(),
                                    now);
                    if (moved && m.machine().state() == PoolMachineState.STARTING)
                        onRegistered.accept(pool, Duration.between(m.machine().started(), now));
                }
                case ScalerAction.Stop s -> stop(pool, s, now);
                case ScalerAction.Blocked b -> log.debug("pool {}: no start: {}", pool.slug(), b.reason());
                case ScalerAction.Start s -> {
                    if (!start(pool, s.job(), now)) return; // backing off: no more starts this pass
                }
            }
        }
    }

    /** Told the boot time of each machine seen registered (from its start to its runner's connection). */
    public PoolScaler onRegistered(BiConsumer<Pool, Duration> listener) {
        this.onRegistered = listener;
        return this;
    }

    /**
     * Stops every live machine of the pool now (busy ones too: their jobs go back to the queue
     * as their runners are lost), before the pool is deleted. False when a stop failed: the
     * machine stays {@code stopping} and the pool must not be deleted yet.
     */
    public synchronized boolean stopAll(Pool pool, String reason) {
        Instant now = clock.instant();
        boolean all = true;
        for (PoolMachine m : store.pools().liveMachines(pool.id())) {
            stop(pool, new ScalerAction.Stop(m, reason, PoolMachineState.STOPPED), now);
            all &= store.pools().liveMachines(pool.id()).stream().noneMatch(x -> x.id() == m.id());
        }
        return all;
    }

    /** False when the provider failed (the pool now backs off). */
    private boolean start(Pool pool, Long job, Instant now) {
        PoolProvider provider = providers.get(pool.settings().provider());
        if (provider == null) {
            backOff(pool, "no provider '" + pool.settings().provider() + "' on this server", now);
            return false;
        }
        RunnerKey key = RunnerKey.generate();
        String name = "pool " + pool.slug() + " "
                + java.util.UUID.randomUUID().toString().substring(0, 8);
        Runner runner;
        try {
            runner = store.runners().createEphemeralRunner(name, Slug.fromName(name), key.hash(), job, now);
        } catch (StoreException e) {
            // The job was claimed, canceled or bound meanwhile: nothing to start for it.
            log.debug("pool {}: not starting for job {}: {}", pool.slug(), job, e.getMessage());
            return true;
        }
        store.specs().addRunnerSpec(runner.id(), pool.settings().specId());
        if (!pool.settings().labels().isEmpty())
            store.runners().setRunnerLabels(runner.id(), true, pool.settings().labels(), now);
        PoolMachine machine = store.pools().addMachine(pool.id(), runner.id(), job, node, now);
        Map<String, String> config = config(pool);
        try {
            String id = provider.start(new PoolProvider.StartRequest(
                    server.get(),
                    runner.slug().value(),
                    key.reveal(),
                    pool.settings().labels(),
                    machine.uuid().toString(),
                    pool.slug(),
                    config));
            store.pools().setProviderId(machine.id(), id, now);
            if (failuresInARow.remove(pool.id()) != null || pool.backoffUntil() != null)
                store.pools().setBackoff(pool.id(), null, null, false, now);
            return true;
        } catch (PoolProvider.ProviderException e) {
            String reason = "provider " + provider.name() + " failed to start a machine: " + e.getMessage();
            store.pools().moveMachine(machine.id(), LIVE, PoolMachineState.FAILED, reason, null, now);
            store.runners().updateRunner(runner.id(), null, null, true, now);
            backOff(pool, reason, now);
            return false;
        }
    }

    private void backOff(Pool pool, String reason, Instant now) {
        int n = failuresInARow.merge(pool.id(), 1, Integer::sum);
        Duration wait = FIRST_BACKOFF.multipliedBy(1L << Math.min(n - 1, 10));
        if (wait.compareTo(MAX_BACKOFF) > 0) wait = MAX_BACKOFF;
        log.warn("pool {}: {}; no start for {} s", pool.slug(), reason, wait.toSeconds());
        store.pools()
                .setBackoff(pool.id(), now.plus(wait), reason + " (retrying in " + wait.toSeconds() + " s)", true, now);
    }

    private void stop(Pool pool, ScalerAction.Stop s, Instant now) {
        PoolMachine m = s.machine();
        if (m.state() != PoolMachineState.STOPPING
                && !store.pools().moveMachine(m.id(), LIVE, PoolMachineState.STOPPING, s.reason(), null, now)) return;
        PoolProvider provider = providers.get(pool.settings().provider());
        if (m.providerId() != null) {
            try {
                if (provider == null) throw new PoolProvider.ProviderException("no provider on this server");
                provider.stop(m.providerId(), config(pool));
            } catch (PoolProvider.ProviderException e) {
                // Left stopping: the next pass (of this node or another) asks again.
                log.warn("pool {}: stopping machine {} failed: {}", pool.slug(), m.uuid(), e.getMessage());
                return;
            }
        } else if (provider != null) {
            // No id: the start failed, or its node died between the provider's start and writing the
            // id back (a machine may run that nobody recorded). A provider that can find it by the
            // machine's own id stops it.
            try {
                provider.stopUnrecorded(m.uuid().toString(), config(pool));
            } catch (PoolProvider.ProviderException e) {
                // Left stopping: the next pass (of this node or another) asks again.
                log.warn("pool {}: stopping machine {} failed: {}", pool.slug(), m.uuid(), e.getMessage());
                return;
            }
        }
        store.pools().moveMachine(m.id(), EnumSet.of(PoolMachineState.STOPPING), s.end(), null, null, now);
        if (s.end() == PoolMachineState.FAILED)
            store.pools().setBackoff(pool.id(), pool.backoffUntil(), pool.reason(), true, now);
        if (m.runnerId() != null) store.runners().updateRunner(m.runnerId(), null, null, true, now);
    }

    private static Map<String, String> config(Pool pool) {
        try {
            return Wire.mapper()
                    .readValue(pool.settings().providerConfig(), new TypeReference<Map<String, String>>() {});
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "pool " + pool.slug() + ": provider_config is not a JSON object of strings", e);
        }
    }
}

package dev.baton.dispatch.pools;

import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.PoolMachineState;
import dev.baton.store.Store;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A pool as the API shows it (docs/api.md "Pools"): its settings, its provider's back-off and
 * failed starts, how many machines are starting, idle and busy, and its machines (the live ones
 * and, on GET of one pool, the last that ended) with their state, age and the job each took.
 */
record PoolView(
        UUID uuid,
        String slug,
        String spec,
        Map<String, String> labels,
        int minIdle,
        int max,
        long idleTimeoutSeconds,
        long bootTimeoutSeconds,
        String provider,
        Map<String, String> providerConfig,
        Instant backoffUntil,
        String reason,
        int failedStarts,
        int starting,
        int idle,
        int busy,
        Instant created,
        Instant modified,
        List<MachineView> machines) {

    /** One machine: {@code ageSeconds} from its start to now (or to its end); {@code job} the uuid of the job it took. */
    record MachineView(
            UUID uuid,
            String state,
            String providerId,
            String runner,
            String job,
            String node,
            String reason,
            Instant started,
            Instant registered,
            Instant ended,
            long ageSeconds) {}

    static PoolView of(Store store, Pool pool, int endedShown, Instant now) {
        List<PoolMachine> machines = endedShown > 0
                ? store.pools().machines(pool.id(), endedShown)
                : store.pools().liveMachines(pool.id());
        String spec = store.specs()
                .findSpec(pool.settings().specId())
                .map(s -> s.slug().value())
                .orElse(null);
        return new PoolView(
                pool.uuid(),
                pool.slug(),
                spec,
                pool.settings().labels(),
                pool.settings().minIdle(),
                pool.settings().max(),
                pool.settings().idleTimeout().toSeconds(),
                pool.settings().bootTimeout().toSeconds(),
                pool.settings().provider(),
                PoolRoutes.config(pool.settings().providerConfig()),
                pool.backoffUntil() != null && pool.backoffUntil().isAfter(now) ? pool.backoffUntil() : null,
                pool.reason(),
                pool.failedStarts(),
                count(machines, PoolMachineState.STARTING),
                count(machines, PoolMachineState.IDLE),
                count(machines, PoolMachineState.BUSY),
                pool.created(),
                pool.modified(),
                machines.stream().map(m -> machine(store, m, now)).toList());
    }

    private static int count(List<PoolMachine> machines, PoolMachineState state) {
        return (int) machines.stream().filter(m -> m.state() == state).count();
    }

    private static MachineView machine(Store store, PoolMachine m, Instant now) {
        String runner = m.runnerId() == null
                ? null
                : store.runners()
                        .findRunner(m.runnerId())
                        .map(r -> r.slug().value())
                        .orElse(null);
        String job = m.jobId() == null ? null : store.pools().jobUuid(m.jobId()).orElse(null);
        Instant end = m.ended() != null ? m.ended() : now;
        return new MachineView(
                m.uuid(),
                m.state().wireName(),
                m.providerId(),
                runner,
                job,
                m.node(),
                m.reason(),
                m.started(),
                m.registered(),
                m.ended(),
                Math.max(0, java.time.Duration.between(m.started(), end).toSeconds()));
    }
}

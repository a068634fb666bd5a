package dev.baton.dispatch.pools;

import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.PoolRunner;
import dev.baton.store.Store;
import java.time.Instant;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * What the server knows of a pool's machines and of its queue, read from the store so that the
 * scaler on any node sees the same (issue 43). A machine's runner is connected when some node
 * holds its channel (the runner's {@code node_id}, written when it attaches) or this node does;
 * busy while an attempt of it is open; spent once that attempt ended (or an admin archived it).
 * The jobs that wait are {@code Pools.waitingJobs} less the first ones that idle runners of the
 * spec will take, so a job a connected runner is about to claim starts no machine.
 */
public final class StoreObserver implements PoolScaler.Observer {
    private final Store store;
    private final LongPredicate connectedHere;

    /** {@code connectedHere}: whether a runner id has a channel to this node (seen before the store has it). */
    public StoreObserver(Store store, LongPredicate connectedHere) {
        this.store = store;
        this.connectedHere = connectedHere;
    }

    @Override
    public MachineView observe(PoolMachine machine) {
        if (machine.runnerId() == null) return new MachineView(machine, RunnerPhase.NOT_CONNECTED, null);
        PoolRunner r = store.pools().poolRunner(machine.runnerId()).orElse(null);
        if (r == null || r.archived() || r.spent()) return new MachineView(machine, RunnerPhase.SPENT, null);
        if (r.job() != null) return new MachineView(machine, RunnerPhase.BUSY, r.job());
        if (r.connected() || connectedHere.test(machine.runnerId()))
            return new MachineView(machine, RunnerPhase.IDLE, null);
        return new MachineView(machine, RunnerPhase.NOT_CONNECTED, null);
    }

    @Override
    public List<Long> waitingJobs(Pool pool, Instant now) {
        int idle = store.pools().idleRunners(pool.settings().specId());
        // More than max + idle jobs cannot change the decision: the pool starts at most max machines.
        List<Long> jobs =
                store.pools().waitingJobs(pool, now, idle + pool.settings().max());
        return jobs.subList(Math.min(idle, jobs.size()), jobs.size());
    }
}

package dev.baton.dispatch.pools;

import dev.baton.store.Pool;
import java.time.Instant;
import java.util.List;

/**
 * The scaler's input for one pool (issue 43): the pool, its live machines, and the jobs that
 * wait for it: pending jobs of its spec (with labels its runners have) that are claimable now,
 * that no idle runner can take, and that no live single-job runner is bound to. Jobs pending for
 * another reason (a quarantined or archived spec, a retry back-off, a queue timeout reached, a
 * tier limit) are not among them: a new machine would not run them either.
 */
public record PoolQueue(Pool pool, List<MachineView> machines, List<Long> waitingJobs, Instant now) {
    public PoolQueue {
        machines = List.copyOf(machines);
        waitingJobs = List.copyOf(waitingJobs);
    }
}

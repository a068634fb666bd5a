package dev.baton.dispatch;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.store.Attempt;
import dev.baton.store.Job;
import java.util.List;
import java.util.Optional;

/**
 * Which attempt a job-scoped message of a runner speaks for ({@link Resolution}): the fencing
 * every runner word goes through first. The attempt is taken from this node's memory when its
 * lease matches, else from the store; a stored in-flight attempt this node does not hold yet (its
 * runner came here from another node, or this node restarted) is adopted into memory.
 */
final class AttemptResolver {
    private final LifecycleContext ctx;

    AttemptResolver(LifecycleContext ctx) {
        this.ctx = ctx;
    }

    Resolution resolve(RunnerSession session, JobUuid jobId, LeaseId lease) {
        var inMemory = ctx.active.get(jobId);
        if (inMemory.isPresent() && inMemory.get().lease.matches(lease)) {
            ActiveJob a = inMemory.get();
            if (a.runnerId != session.runnerId()) return new Resolution.Forbidden();
            if (!a.reattach) return new Resolution.Current(a);
            // The runner came back: drop the store's lost deadline, unless the attempt ended meanwhile.
            Optional<Job> current = ctx.store.liveness().reattach(a.job, a.lease);
            if (current.isPresent()) {
                a.reattach = false;
                if (a.started == null && current.get().started() != null)
                    a.started = current.get().started();
                return new Resolution.Current(a);
            }
            ctx.forget(a);
        }
        var stored = ctx.store.runs().findJob(jobId);
        if (stored.isEmpty()) return new Resolution.Stale("no such job");
        Job job = stored.get();
        if (job.holds(lease)) {
            if (job.runnerId() == null || job.runnerId() != session.runnerId()) return new Resolution.Forbidden();
            if (job.status().inFlight()) {
                ActiveJob adopted = adopt(job); // not in memory here yet: another node's runner, or a restart
                if (adopted != null) return new Resolution.Current(adopted);
                job = ctx.store.runs().findJob(jobId).orElse(job);
                if (!job.holds(lease)) return new Resolution.Stale("lease is no longer current");
            }
            return new Resolution.Finished(job);
        }
        // Any lease that is not the current one changes nothing and is answered stale, whether it
        // is an earlier attempt of this runner or one it never held.
        List<Attempt> attempts = ctx.store.runs().attempts(job.id());
        boolean earlierAttemptOfThisRunner =
                attempts.stream().anyMatch(at -> at.lease().matches(lease) && at.runnerId() == session.runnerId());
        return new Resolution.Stale(
                earlierAttemptOfThisRunner ? "lease is no longer current" : "lease is not valid for this job");
    }

    /**
     * A stored in-flight attempt this node does not hold in memory (its runner came here from
     * another node, or this node restarted): the store drops its lost deadline, and this node
     * keeps it in memory with wake-ups for its deadlines. Null when it ended meanwhile.
     */
    private ActiveJob adopt(Job stored) {
        Optional<Job> current = ctx.store.liveness().reattach(stored.uuid(), stored.lease());
        if (current.isEmpty()) return null;
        Job job = current.get();
        ActiveJob a = new ActiveJob(
                job.uuid(),
                job.lease(),
                job.runnerId(),
                job.attempt(),
                job.timeout(),
                job.projectId(),
                job.started(),
                job.lastBilledMinute() == null ? 0 : job.lastBilledMinute());
        ctx.active.put(a);
        if (a.isRunning()) ctx.hardTimeoutWake(a);
        else ctx.wakeAt(DeadlineKeys.accept(a.job), job.claimed().plus(ctx.settings.acceptanceTimeout()));
        return a;
    }
}

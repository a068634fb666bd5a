package dev.baton.dispatch;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import java.time.Instant;

/**
 * The in-memory view of one in-flight attempt: enough to answer heartbeats and enforce deadlines
 * without touching the database. Mutable fields are only changed under the owning
 * {@link ActiveJobs} lock.
 */
public final class ActiveJob {
    final JobUuid job;
    final LeaseId lease;
    final long runnerId;
    /** The attempt number: how other nodes name this attempt (never by its lease). */
    final int attempt;

    final int timeoutSeconds;
    /** The job's project (never changes): where its output is stored, without reading the job again. */
    final long projectId;

    volatile Instant started;
    volatile int lastBilledMinute;
    /** Set once the job is canceled and the runner was told; the lease stays valid for its {@code canceled}. */
    volatile boolean cancelRequested;
    /**
     * Its runner's channel closed or opened since the runner last spoke of it: the store may hold a
     * lost deadline for it, or another node may have ended it. The next message checks with the store.
     */
    volatile boolean reattach;

    ActiveJob(
            JobUuid job,
            LeaseId lease,
            long runnerId,
            int attempt,
            int timeoutSeconds,
            long projectId,
            Instant started,
            int lastBilledMinute) {
        this.job = job;
        this.lease = lease;
        this.runnerId = runnerId;
        this.attempt = attempt;
        this.timeoutSeconds = timeoutSeconds;
        this.projectId = projectId;
        this.started = started;
        this.lastBilledMinute = lastBilledMinute;
    }

    public JobUuid job() {
        return job;
    }

    public LeaseId lease() {
        return lease;
    }

    public long runnerId() {
        return runnerId;
    }

    public boolean isRunning() {
        return started != null;
    }
}

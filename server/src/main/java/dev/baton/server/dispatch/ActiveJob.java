package dev.baton.server.dispatch;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
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
    final long organizationId;
    final ProjectUuid project;
    final int timeoutSeconds;
    final int priority;
    final Instant claimed;
    volatile Instant started;
    volatile Instant lastSeen;
    volatile int lastBilledMinute;
    /** Set once the job is canceled and the runner was told; the lease stays valid for its {@code canceled}. */
    volatile boolean cancelRequested;

    ActiveJob(JobUuid job, LeaseId lease, long runnerId, long organizationId, ProjectUuid project, int timeoutSeconds,
            int priority, Instant claimed, Instant started, Instant lastSeen, int lastBilledMinute) {
        this.job = job;
        this.lease = lease;
        this.runnerId = runnerId;
        this.organizationId = organizationId;
        this.project = project;
        this.timeoutSeconds = timeoutSeconds;
        this.priority = priority;
        this.claimed = claimed;
        this.started = started;
        this.lastSeen = lastSeen;
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

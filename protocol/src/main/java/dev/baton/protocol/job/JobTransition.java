package dev.baton.protocol.job;

import static dev.baton.protocol.job.JobStatus.CANCELED;
import static dev.baton.protocol.job.JobStatus.CLAIMED;
import static dev.baton.protocol.job.JobStatus.COMPLETED;
import static dev.baton.protocol.job.JobStatus.FAILED;
import static dev.baton.protocol.job.JobStatus.PENDING;
import static dev.baton.protocol.job.JobStatus.PROCESSED;
import static dev.baton.protocol.job.JobStatus.RUNNING;

import java.util.EnumSet;
import java.util.Set;

/**
 * The job state machine as data: every allowed edge, named by what triggers it. The store
 * performs each one as a compare-and-set on {@link #from()}; anything not listed is forbidden.
 *
 * <p>Seed 000's table plus the brief's requeue path (claimed → pending), the retry path of
 * a job that opted in to retries (failed → pending), and the queue timeout (pending → failed).
 */
public enum JobTransition {
    /** A runner claims the job (new attempt, new lease). */
    CLAIM(EnumSet.of(PENDING), CLAIMED),
    /** The runner declined, went silent before {@code running}, or missed the acceptance window. */
    REQUEUE(EnumSet.of(CLAIMED), PENDING),
    /** The runner sent {@code running}: execution really started. */
    START(EnumSet.of(CLAIMED), RUNNING),
    /** The runner sent {@code completed}; also overrides a heartbeat-timeout failure (seed 000). */
    COMPLETE(EnumSet.of(CLAIMED, RUNNING, FAILED), COMPLETED),
    /** The runner sent {@code failed}, lost contact, or exhausted its requeues. */
    FAIL(EnumSet.of(CLAIMED, RUNNING), FAILED),
    /** A user canceled, the hard timeout passed, or the runner acknowledged a cancel. */
    CANCEL(EnumSet.of(PENDING, CLAIMED, RUNNING), CANCELED),
    /** The adapter parsed the stored output into the report. */
    PROCESS(EnumSet.of(COMPLETED), PROCESSED),
    /** A started job that opted in to a retry policy goes back to the queue as a new attempt. */
    RETRY(EnumSet.of(FAILED), PENDING),
    /** The job waited longer than its queue timeout without starting (issue 10). */
    QUEUE_TIMEOUT(EnumSet.of(PENDING), FAILED);

    private final Set<JobStatus> from;
    private final JobStatus to;

    JobTransition(Set<JobStatus> from, JobStatus to) {
        this.from = Set.copyOf(from);
        this.to = to;
    }

    public Set<JobStatus> from() {
        return from;
    }

    public JobStatus to() {
        return to;
    }

    public boolean allowedFrom(JobStatus status) {
        return from.contains(status);
    }

    /** True when some transition leads from {@code from} to {@code to}. */
    public static boolean allowed(JobStatus from, JobStatus to) {
        for (JobTransition t : values()) {
            if (t.to == to && t.from.contains(from)) return true;
        }
        return false;
    }
}

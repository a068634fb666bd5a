package dev.baton.store;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.model.JobConfig;
import java.time.Instant;

/**
 * One job (seed 001) plus Baton's lease fields: {@code lease} is the current attempt's fencing
 * token (null while pending), {@code attempt} counts claims, {@code requeues} counts returns to
 * the queue before the job started, {@code notBefore} is when a retried job may be claimed again
 * (its backoff), null when it may be claimed at once. {@code queueTimeout} (seconds, null for none)
 * bounds how long it may wait from {@code created}; {@code errorCode} names failures the server
 * decides ({@code queue_timeout}, {@code declined}); {@code declineBackoffUntil} is when the
 * last decline back-off ends (every runner of its spec had declined it), null if it never had one.
 * {@code canaryRunnerId} is the quarantined runner a canary job is for (docs/scheduling.md), else null.
 */
public record Job(
        long id,
        JobUuid uuid,
        long reportId,
        long projectId,
        long organizationId,
        String sourceIp,
        long specId,
        JobConfig config,
        int timeout,
        int priority,
        JobStatus status,
        Long runnerId,
        LeaseId lease,
        int attempt,
        int requeues,
        Instant claimed,
        Instant started,
        Instant completed,
        Instant lastHeartbeat,
        Integer lastBilledMinute,
        String error,
        Instant notBefore,
        Instant created,
        Instant modified,
        Integer queueTimeout,
        String errorCode,
        Instant declineBackoffUntil,
        Long canaryRunnerId) {

    /** True when {@code lease} is this job's current lease (constant-time). */
    public boolean holds(LeaseId candidate) {
        return lease != null && lease.matches(candidate);
    }

    /** When this job fails for waiting too long, or null when it may wait for ever. */
    public Instant queueDeadline() {
        return queueTimeout == null ? null : created.plusSeconds(queueTimeout);
    }
}

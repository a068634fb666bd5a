package dev.baton.store;

import dev.baton.protocol.id.LeaseId;
import java.time.Instant;

/**
 * One claim of a job by a runner: the lease record (seed 003). {@code outcome} is null while open;
 * {@code declineCode} (a DeclineCode wire name) and {@code declineReason} are set when the runner declined;
 * {@code fingerprint} is the runner's machine fingerprint as the JSON it sent, or null; {@code warm}
 * whether the runner held the job's image when it claimed it (null: it reported no images).
 */
public record Attempt(
        long id,
        long jobId,
        int number,
        LeaseId lease,
        long runnerId,
        Instant claimed,
        Instant started,
        Instant ended,
        AttemptOutcome outcome,
        String declineCode,
        String declineReason,
        String fingerprint,
        Boolean warm) {}

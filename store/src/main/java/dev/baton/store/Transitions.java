package dev.baton.store;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import java.time.Duration;
import java.time.Instant;

/**
 * The store's part for a job's state changes after its claim: each a compare-and-set on the
 * expected status (and lease, where one is given); zero rows means re-read and classify,
 * reported as a {@link Transition}.
 */
public interface Transitions {
    /** claimed → running under {@code lease}; sets started. Running already under the same lease: DUPLICATE. */
    default Transition start(JobUuid job, LeaseId lease, Instant now) {
        return start(job, lease, now, Store.DEFAULT_JOB_TIMEOUT_GRACE);
    }

    /** The start with its hard deadline ({@code started + timeout + grace}) written in the same transaction. */
    Transition start(JobUuid job, LeaseId lease, Instant now, Duration grace);

    /**
     * claimed → pending under {@code lease} (decline, acceptance timeout, lost before start):
     * closes the attempt with {@code outcome}, clears runner and lease, requeues+1. When requeues
     * would exceed {@code maxRequeues} the job is failed instead, with a reason saying so.
     * {@code outcome} is DECLINED, ACCEPT_TIMEOUT or LOST_BEFORE_START. The same requeue resent
     * under the old lease is DUPLICATE. Without a decline back-off: see the full form.
     */
    default Transition requeue(JobUuid job, LeaseId lease, AttemptOutcome outcome, int maxRequeues, Instant now) {
        return requeue(job, lease, outcome, null, maxRequeues, Store.DEFAULT_DECLINE_BACKOFF, now);
    }

    /**
     * The full requeue. A DECLINED attempt stores {@code decline} (code and reason) on its
     * attempt record; the runner is not offered the job again until the job's next back-off. When
     * with this decline every non-archived runner serving the job's spec has declined in the
     * current round, the job gets {@code decline_backoff_until = now + declineBackoff}: after it,
     * every runner may try again (a decline may be transient). Running out of requeues after a decline fails
     * the job with error_code {@code declined} and every runner's last reason in the error.
     */
    Transition requeue(
            JobUuid job,
            LeaseId lease,
            AttemptOutcome outcome,
            Decline decline,
            int maxRequeues,
            Duration declineBackoff,
            Instant now);

    /**
     * pending → failed with error_code {@code queue_timeout} and {@code error}, only while the job
     * is pending (a claimed job is not taken from its runner). CONFLICT when it is not pending.
     */
    Transition expireQueued(JobUuid job, String error, Instant now);

    /** {claimed, running, failed} → completed under {@code lease}; completed already: DUPLICATE. */
    default Transition complete(JobUuid job, LeaseId lease, Instant now) {
        return complete(job, lease, now, null);
    }

    /**
     * As {@link #complete(JobUuid, LeaseId, Instant)}, and when applied the attempt of {@code lease}
     * keeps {@code output} (the encoded output, or null when it is stored elsewhere) in the same
     * transaction: a refused transition stores nothing (docs/decisions/0034-small-output-on-the-attempt.md).
     */
    Transition complete(JobUuid job, LeaseId lease, Instant now, byte[] output);

    /**
     * {claimed, running} → failed under {@code lease} with an error; failed already: DUPLICATE.
     * The failure is classified ({@link FailureKind}: LOST is runner_lost) and, if the job's retry
     * policy retries that kind and exit code and it has attempts left, the same transaction sends
     * it on to pending (RETRY): the result is APPLIED with a PENDING job, lease cleared, claimable
     * after the backoff. The attempt keeps its kind and the decision (issue 41).
     */
    default Transition fail(JobUuid job, LeaseId lease, String error, AttemptOutcome outcome, Instant now) {
        return fail(job, lease, error, outcome, now, null);
    }

    /** As {@link #fail(JobUuid, LeaseId, String, AttemptOutcome, Instant)}, the attempt keeping {@code output} as {@link #complete(JobUuid, LeaseId, Instant, byte[])} does. */
    default Transition fail(
            JobUuid job, LeaseId lease, String error, AttemptOutcome outcome, Instant now, byte[] output) {
        return fail(job, lease, error, outcome, now, output, AttemptFailure.UNKNOWN);
    }

    /** As above, with what the runner said about the failure: its code and the failing exit code (issue 41). */
    Transition fail(
            JobUuid job,
            LeaseId lease,
            String error,
            AttemptOutcome outcome,
            Instant now,
            byte[] output,
            AttemptFailure failure);

    /**
     * → canceled. With a lease (runner acknowledgment, hard timeout): only under that lease.
     * Without (user cancel): from pending, claimed or running. Canceled already: DUPLICATE.
     */
    default Transition cancel(JobUuid job, LeaseId lease, String reason, Instant now) {
        return cancel(job, lease, reason, now, lease == null ? now.plus(Store.DEFAULT_CANCEL_DEADLINE) : null);
    }

    /**
     * The cancel; a job canceled while in flight also gets {@code cancel_deadline =
     * cancelDeadline} (null: none, e.g. the runner's own {@code canceled}) in the same transaction:
     * by then its runner must have answered, or it is told its lease is gone.
     */
    Transition cancel(JobUuid job, LeaseId lease, String reason, Instant now, Instant cancelDeadline);

    /** completed → processed, writing the adapter's results and the job's real times to the report (clearing any error). */
    Transition process(JobUuid job, String results, Instant now);

    /**
     * The output of a completed job did not parse: writes what did parse ({@code results}, may
     * be null), the {@code error} and the job's real times to the report; the job stays
     * completed (seed 001). APPLIED (with the unchanged job) when the job is completed; otherwise
     * nothing is written and the job is classified (processed: DUPLICATE).
     */
    Transition recordAdapterError(JobUuid job, String results, String error, Instant now);
}

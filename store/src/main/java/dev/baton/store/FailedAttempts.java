package dev.baton.store;

import static dev.baton.store.Rows.micros;

import dev.baton.protocol.id.LeaseId;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * A started attempt that failed, in the transaction that failed its job: its kind and exit code
 * and the retry decision are written on the attempt, and the job goes back to the queue as a new
 * attempt (RETRY: failed → pending, after its backoff) when its policy says so (issue 41). Both
 * transports' failures — the runner channel's {@code failed} and heartbeat timeout, transport A's
 * {@code Complete} and expired lease — end here, so they are decided alike.
 */
final class FailedAttempts {
    private final Statements statements;
    private final JobRows jobRows;

    FailedAttempts(Statements statements, JobRows jobRows) {
        this.statements = statements;
        this.jobRows = jobRows;
    }

    /**
     * Decides for {@code failed} (the job just failed under {@code lease}) and returns the job as
     * retried, or empty when it stays failed.
     */
    Optional<Job> decide(Handle h, Job failed, LeaseId lease, FailureKind kind, Integer exitCode, Instant now) {
        RetryPolicy policy = policy(h, failed.id());
        NotRetried why = policy.refuses(kind, exitCode, failed.attempt());
        statements
                .on(
                        h,
                        "UPDATE job_attempt SET end_reason = :kind, exit_code = :exit, retry_decision = :decision"
                                + " WHERE job_id = :job AND lease = :lease")
                .bind("kind", kind.wireName())
                .bind("exit", exitCode)
                .bind("decision", why == null ? RETRIED : why.wireName())
                .bind("job", failed.id())
                .bind("lease", lease.value())
                .execute();
        if (why != null) return Optional.empty();
        return statements
                .on(
                        h,
                        "UPDATE job SET status = 0, runner_id = NULL, lease = NULL, claimed = NULL, started = NULL,"
                                + " completed = NULL, last_heartbeat = NULL, not_before = :now + CAST(backoff_seconds AS BIGINT) * 1000000,"
                                + " modified = :now WHERE id = :id AND lease = :lease AND status = 4 RETURNING "
                                + Rows.JOB)
                .bind("now", micros(now))
                .bind("id", failed.id())
                .bind("lease", lease.value())
                .findOne(jobRows);
    }

    RetryPolicy policy(Handle h, long jobId) {
        return statements
                .on(
                        h,
                        "SELECT max_attempts, backoff_seconds, retry_when_runner_lost, retry_on, final_exit_codes FROM job WHERE id = :id")
                .bind("id", jobId)
                .one(rs -> RetryPolicy.fromColumns(
                        rs.getInt("max_attempts"),
                        rs.getInt("backoff_seconds"),
                        rs.getBoolean("retry_when_runner_lost"),
                        rs.getString("retry_on"),
                        rs.getString("final_exit_codes")));
    }

    /** The stored decision of a retried attempt (the others store a {@link NotRetried} wire name). */
    static final String RETRIED = "retried";
}

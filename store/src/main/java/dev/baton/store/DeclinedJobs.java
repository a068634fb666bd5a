package dev.baton.store;

import static dev.baton.store.ClaimSql.DECLINED_THIS_ROUND;
import static dev.baton.store.ClaimSql.SERVING_RUNNER_HAS_REQUIRED_LABELS;
import static dev.baton.store.Rows.micros;

import dev.baton.protocol.id.LeaseId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/**
 * What a runner's decline does to its job beyond the requeue, in the requeue's transaction
 * ({@link JdbcTransitions#requeue}): the runner's code and reason on its attempt; a back-off when
 * every runner serving the spec has declined the job this round, so it does not circle between
 * runners that all refuse it; and, when its requeues are spent, a failure that quotes what each
 * runner said.
 */
final class DeclinedJobs {
    private final Statements statements;
    private final JobRows jobRows;

    DeclinedJobs(Statements statements, JobRows jobRows) {
        this.statements = statements;
        this.jobRows = jobRows;
    }

    /**
     * Records the decline of {@code after} (the job just requeued, or failed when {@code exhausted})
     * under {@code lease}, and returns the job as it then stands.
     */
    Job recorded(
            Handle h,
            Job after,
            LeaseId lease,
            Decline decline,
            boolean exhausted,
            int maxRequeues,
            Duration declineBackoff,
            Instant now) {
        Decline said = decline != null ? decline : new Decline("other", null);
        statements
                .on(
                        h,
                        "UPDATE job_attempt SET decline_code = :code, decline_reason = :reason WHERE job_id = :job AND lease = :lease")
                .bind("code", said.code())
                .bind("reason", said.reason())
                .bind("job", after.id())
                .bind("lease", lease.value())
                .execute();
        if (exhausted) return failedByDeclines(h, after, maxRequeues, now);
        if (declinedByEveryServingRunner(h, after, now)) {
            long backoff = Math.max(1, micros(Instant.EPOCH.plus(declineBackoff)));
            return h.createQuery(
                            "UPDATE job SET decline_backoff_until = :until, modified = :now WHERE id = :id RETURNING "
                                    + Rows.JOB)
                    .bind("until", micros(now) + backoff)
                    .bind("now", micros(now))
                    .bind("id", after.id())
                    .map(jobRows.mapper)
                    .one();
        }
        return after;
    }

    /**
     * True when every runner serving the job's spec (not archived, not quarantined, with the labels
     * it requires) has declined it since its last
     * back-off (a spec nobody serves is not "declined by every runner": it waits as no_runner).
     */
    private boolean declinedByEveryServingRunner(Handle h, Job job, Instant now) {
        return h.createQuery(
                                        "SELECT COUNT(*) FROM runner_spec rs JOIN runner r ON r.id = rs.runner_id AND r.archived IS NULL"
                                                + " AND r.quarantined IS NULL JOIN job j ON j.id = :job"
                                                + " WHERE rs.spec_id = :spec AND " + SERVING_RUNNER_HAS_REQUIRED_LABELS
                                                + " AND NOT EXISTS (SELECT 1 FROM job_attempt a WHERE a.job_id = j.id"
                                                + " AND a.runner_id = rs.runner_id AND a.outcome = 3 AND "
                                                + DECLINED_THIS_ROUND + ")")
                                .bind("spec", job.specId())
                                .bind("job", job.id())
                                .bind("now", micros(now))
                                .mapTo(Long.class)
                                .one()
                        == 0
                && h.createQuery(
                                        "SELECT COUNT(*) FROM runner_spec rs JOIN runner r ON r.id = rs.runner_id AND r.archived IS NULL"
                                                + " AND r.quarantined IS NULL WHERE rs.spec_id = :spec AND "
                                                + SERVING_RUNNER_HAS_REQUIRED_LABELS)
                                .bind("spec", job.specId())
                                .bind("job", job.id())
                                .mapTo(Long.class)
                                .one()
                        > 0;
    }

    /** The requeue-exhausted failure after a decline, rewritten to say what each runner said (error_code declined). */
    private Job failedByDeclines(Handle h, Job job, int maxRequeues, Instant now) {
        List<String> said = new ArrayList<>();
        Set<Long> seen = new java.util.HashSet<>();
        for (var row : h.createQuery(
                        "SELECT r.slug, a.runner_id, a.decline_code, a.decline_reason FROM job_attempt a"
                                + " JOIN runner r ON r.id = a.runner_id WHERE a.job_id = :job AND a.outcome = 3 ORDER BY a.number DESC")
                .bind("job", job.id())
                .mapToMap()
                .list()) {
            long runner = ((Number) row.get("runner_id")).longValue();
            if (!seen.add(runner)) continue; // each runner's last word
            Object reason = row.get("decline_reason");
            said.add(row.get("slug") + " (" + row.get("decline_code") + (reason == null ? "" : ": " + reason) + ")");
        }
        String error =
                "declined by the runners and max_requeues (" + maxRequeues + ") is spent: " + String.join("; ", said);
        return h.createQuery(
                        "UPDATE job SET error = :error, error_code = 'declined', modified = :now WHERE id = :id RETURNING "
                                + Rows.JOB)
                .bind("error", error)
                .bind("now", micros(now))
                .bind("id", job.id())
                .map(jobRows.mapper)
                .one();
    }
}

package dev.baton.store;

import static dev.baton.store.Rows.micros;

import dev.baton.protocol.id.LeaseId;
import java.time.Instant;
import java.util.stream.Collectors;

/**
 * What a claim writes when it takes a job: pending → claimed under its lease, with the acceptance
 * deadline, and the attempt row. One text for both ways of taking a job: a statement of its own
 * after the candidate was chosen ({@link JdbcClaims#applyClaim}), and PostgreSQL's claim that
 * finds, locks and takes the job in one statement ({@link PostgresClaim}).
 *
 * @param filter the claim's filter, for the images the runner holds (the attempt's {@code warm})
 * @param rows reads the claimed job's row back
 */
record ClaimWrite(long runnerId, LeaseId lease, Instant now, Instant acceptUntil, ClaimFilter filter, JobRows rows) {
    /** The job's columns a claim sets (after {@code UPDATE job SET}). */
    static final String SET = "status = 1, runner_id = :runner, lease = :lease, attempt = attempt + 1,"
            + " claimed = :now, started = NULL, completed = NULL, last_heartbeat = :now, error = NULL, modified = :now,"
            + " accept_deadline = :acceptUntil, hard_deadline = NULL, lost_deadline = NULL, cancel_deadline = NULL";

    /** The attempt row's columns; the machine is the runner's latest (recorded when its connection said ready). */
    static final String ATTEMPT_COLUMNS = "job_id, number, lease, runner_id, claimed, warm, machine_id";

    static final String MACHINE = "(SELECT machine_id FROM runner WHERE id = :runner)";

    /**
     * The attempt's {@code warm} in SQL for the claimed job {@code job} ({@link ClaimFilter#warm} in
     * Java): NULL when the runner reports no images or the job names none, else whether the job's
     * digest is among {@code :held} (the held digests, space-separated; a digest has no space).
     */
    static String warmSql(String job) {
        String digest = "(" + job + ".config::jsonb ->> 'digest')";
        return "CASE WHEN CAST(:held AS TEXT) IS NULL OR " + digest + " IS NULL THEN NULL WHEN " + digest
                + " = ANY (string_to_array(:held, ' ')) THEN 1 ELSE 0 END";
    }

    /** Binds what {@link #SET}, the attempt's values and {@link #warmSql} name. */
    Sql bind(Sql sql) {
        return sql.bind("runner", runnerId)
                .bind("lease", lease.value())
                .bind("now", micros(now))
                .bind("acceptUntil", micros(acceptUntil));
    }

    /** The held digests for {@link #warmSql}, or null when the runner reports none. */
    String held() {
        return filter.heldImages() == null
                ? null
                : filter.heldImages().stream().map(d -> d.value()).collect(Collectors.joining(" "));
    }
}

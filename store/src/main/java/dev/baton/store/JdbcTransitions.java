package dev.baton.store;

import static dev.baton.store.Rows.micros;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/** A job's transitions after its claim, each a compare-and-set on its status and lease, and its attempts closed with them. */
final class JdbcTransitions implements Transitions {
    private static final Set<AttemptOutcome> REQUEUE_OUTCOMES =
            Set.of(AttemptOutcome.DECLINED, AttemptOutcome.ACCEPT_TIMEOUT, AttemptOutcome.LOST_BEFORE_START);

    private final StoreContext context;
    private final Statements statements;
    private final JobRows jobRows;
    private final FailedAttempts failedAttempts;
    private final DeclinedJobs declines;
    /** PostgreSQL: the attempt's (or report's) update rides in the compare-and-set's statement (decision 0053). */
    private final boolean oneStatement;

    JdbcTransitions(StoreContext context, SqlDialect dialect) {
        this.context = context;
        this.oneStatement = dialect.modifiesInCtes();
        this.statements = context.statements;
        this.jobRows = context.jobRows;
        this.failedAttempts = new FailedAttempts(context.statements, context.jobRows);
        this.declines = new DeclinedJobs(context.statements, context.jobRows);
    }

    @Override
    public Transition start(JobUuid job, LeaseId lease, Instant now, java.time.Duration grace) {
        Objects.requireNonNull(lease, "lease");
        return context.write(h -> {
            Optional<Job> started = cas(
                    h,
                    "status = 2, started = :now, last_heartbeat = :now,"
                            + " hard_deadline = :now + CAST(timeout AS BIGINT) * 1000000 + :grace",
                    "status = 1 AND lease = :lease",
                    oneStatement ? ATTEMPT_STARTED : null,
                    job,
                    now,
                    q -> q.bind("lease", lease.value()).bind("grace", grace.toNanos() / 1000));
            if (started.isPresent()) {
                if (!oneStatement) closeAttempt(h, started.get(), lease, "started = :now", now);
                return applied(started.get());
            }
            Transition t = classify(h, job, lease, Set.of(JobStatus.RUNNING));
            if (t.result() == Transition.Result.DUPLICATE) {
                // A resent `running` (reconnect) only refreshes liveness (seed 000).
                statements
                        .on(
                                h,
                                "UPDATE job SET last_heartbeat = :now WHERE id = :id AND (last_heartbeat IS NULL OR last_heartbeat < :now)")
                        .bind("now", micros(now))
                        .bind("id", t.job().id())
                        .execute();
                return new Transition(t.result(), context.job(h, job).orElseThrow());
            }
            return t;
        });
    }

    @Override
    public Transition requeue(
            JobUuid job,
            LeaseId lease,
            AttemptOutcome outcome,
            Decline decline,
            int maxRequeues,
            java.time.Duration declineBackoff,
            Instant now) {
        Objects.requireNonNull(lease, "lease");
        if (!REQUEUE_OUTCOMES.contains(outcome)) {
            throw new IllegalArgumentException(
                    "a requeue closes its attempt as declined, accept_timeout or lost_before_start, not " + outcome);
        }
        return context.write(h -> {
            Optional<Job> requeued = cas(
                    h,
                    "status = 0, runner_id = NULL, lease = NULL, claimed = NULL, last_heartbeat = NULL, requeues = requeues + 1",
                    "status = 1 AND lease = :lease AND requeues < :max",
                    job,
                    now,
                    q -> q.bind("lease", lease.value()).bind("max", maxRequeues));
            boolean exhausted = false;
            if (requeued.isEmpty()) {
                // Out of requeues: a job that never starts must still end (brief §5), so it fails
                // with a reason that says why, rather than circling the queue for ever.
                exhausted = true;
                String error = "the job went back to the queue " + (maxRequeues + 1) + " times without starting (last: "
                        + outcome.name().toLowerCase(java.util.Locale.ROOT) + "); max_requeues is " + maxRequeues;
                requeued = cas(
                        h,
                        "status = 4, requeues = requeues + 1, completed = :now, error = :error",
                        "status = 1 AND lease = :lease AND requeues >= :max",
                        job,
                        now,
                        q -> q.bind("lease", lease.value())
                                .bind("max", maxRequeues)
                                .bind("error", error));
            }
            if (requeued.isPresent()) {
                Job after = requeued.get();
                closeAttempt(h, after, lease, outcome, now, false, null);
                if (outcome == AttemptOutcome.DECLINED)
                    after = declines.recorded(h, after, lease, decline, exhausted, maxRequeues, declineBackoff, now);
                return applied(after);
            }
            Optional<Attempt> previous = attemptByLease(h, job, lease);
            if (previous.isPresent()
                    && previous.get().outcome() != null
                    && REQUEUE_OUTCOMES.contains(previous.get().outcome())) {
                // The same requeue again (a resent decline): already done under this lease.
                return new Transition(
                        Transition.Result.DUPLICATE, context.job(h, job).orElseThrow());
            }
            return classify(h, job, lease, Set.of());
        });
    }

    @Override
    public Transition expireQueued(JobUuid job, String error, Instant now) {
        return context.write(h -> {
            Optional<Job> failed = cas(
                    h,
                    "status = 4, completed = :now, error = :error, error_code = 'queue_timeout'",
                    "status = 0",
                    job,
                    now,
                    q -> q.bind("error", error));
            return failed.map(JdbcTransitions::applied).orElseGet(() -> classify(h, job, null, Set.of()));
        });
    }

    @Override
    public Transition complete(JobUuid job, LeaseId lease, Instant now, byte[] output) {
        Objects.requireNonNull(lease, "lease");
        return context.write(h -> {
            // From failed too, but only under the same lease: the runner, not the heartbeat
            // timer, is the authority on the outcome (brief §1).
            Optional<Job> completed = cas(
                    h,
                    "status = 3, completed = :now, error = NULL",
                    "status IN (1, 2, 4) AND lease = :lease",
                    oneStatement ? ATTEMPT_COMPLETED : null,
                    job,
                    now,
                    q -> q.bind("lease", lease.value())
                            .bind("outcome", AttemptOutcome.COMPLETED.code())
                            .bind("output", output));
            if (completed.isPresent()) {
                // The attempt ends completed, and forgets a failure it ended with before (an
                // override of a heartbeat-timeout failure), in one statement on either database.
                if (!oneStatement) closeCompletedAttempt(h, completed.get(), lease, now, output);
                return applied(completed.get());
            }
            // Processed has passed through completed: a resent `completed` is a duplicate.
            return classify(h, job, lease, Set.of(JobStatus.COMPLETED, JobStatus.PROCESSED));
        });
    }

    @Override
    public Transition fail(
            JobUuid job,
            LeaseId lease,
            String error,
            AttemptOutcome outcome,
            Instant now,
            byte[] output,
            AttemptFailure failure) {
        AttemptFailure said = failure == null ? AttemptFailure.UNKNOWN : failure;
        Objects.requireNonNull(lease, "lease");
        AttemptOutcome closing = outcome == null ? AttemptOutcome.FAILED : outcome;
        if (closing == AttemptOutcome.COMPLETED || closing == AttemptOutcome.CANCELED) {
            throw new IllegalArgumentException(
                    "a failed attempt cannot end " + closing.name().toLowerCase(java.util.Locale.ROOT));
        }
        return context.write(h -> {
            Optional<Job> failed = cas(
                    h,
                    "status = 4, completed = :now, error = :error",
                    "status IN (1, 2) AND lease = :lease",
                    job,
                    now,
                    q -> q.bind("lease", lease.value()).bind("error", error));
            if (failed.isEmpty()) return classify(h, job, lease, Set.of(JobStatus.FAILED));
            closeAttempt(h, failed.get(), lease, closing, now, false, output);
            // Opt-in retry (RETRY: failed → pending, a new attempt later under a new lease): only
            // the kinds of failure and exit codes the job's policy retries, while it has attempts left.
            if (closing == AttemptOutcome.FAILED || closing == AttemptOutcome.LOST) {
                FailureKind kind = FailureKind.classify(closing, said.code());
                Optional<Job> retried = failedAttempts.decide(h, failed.get(), lease, kind, said.exitCode(), now);
                if (retried.isPresent()) return applied(retried.get());
            }
            return applied(failed.get());
        });
    }

    @Override
    public Transition cancel(JobUuid job, LeaseId lease, String reason, Instant now, Instant cancelDeadline) {
        // Only a job taken from a runner waits for that runner's answer (a pending one has none).
        String set =
                "cancel_deadline = CASE WHEN status IN (1, 2) THEN :cancelDeadline ELSE NULL END, status = 5, completed = :now, error = :reason";
        return context.write(h -> {
            Optional<Job> canceled = lease != null
                    ? cas(
                            h,
                            set,
                            "status IN (1, 2) AND lease = :lease",
                            job,
                            now,
                            q -> q.bind("reason", reason)
                                    .bind("lease", lease.value())
                                    .bind("cancelDeadline", micros(cancelDeadline)))
                    : cas(
                            h,
                            set,
                            "status IN (0, 1, 2)",
                            job,
                            now,
                            q -> q.bind("reason", reason).bind("cancelDeadline", micros(cancelDeadline)));
            if (canceled.isEmpty()) return classify(h, job, lease, Set.of(JobStatus.CANCELED));
            // The open attempt (if the job was in flight) ends canceled with the job.
            statements
                    .on(
                            h,
                            "UPDATE job_attempt SET ended = :now, outcome = :outcome WHERE job_id = :job AND outcome IS NULL")
                    .bind("now", micros(now))
                    .bind("outcome", AttemptOutcome.CANCELED.code())
                    .bind("job", canceled.get().id())
                    .execute();
            return applied(canceled.get());
        });
    }

    @Override
    public Transition process(JobUuid job, String results, Instant now) {
        return context.write(h -> {
            Optional<Job> processed = cas(
                    h,
                    "status = 6",
                    "status = 3",
                    oneStatement ? REPORT_PROCESSED : null,
                    job,
                    now,
                    q -> q.bind("results", results).bind("error", (String) null));
            if (processed.isEmpty()) return classify(h, job, null, Set.of(JobStatus.PROCESSED));
            if (!oneStatement) writeReport(h, processed.get(), results, null, now);
            return applied(processed.get());
        });
    }

    @Override
    public Transition recordAdapterError(JobUuid job, String results, String error, Instant now) {
        Objects.requireNonNull(error, "an adapter error needs its message");
        return context.write(h -> {
            // Compare-and-set on the job's status without changing it: only a completed job's
            // report takes an adapter error, and a concurrent processing wins (DUPLICATE).
            Optional<Job> completed = cas(h, "status = 3", "status = 3", job, now, q -> {});
            if (completed.isEmpty()) return classify(h, job, null, Set.of(JobStatus.PROCESSED));
            writeReport(h, completed.get(), results, error, now);
            return applied(completed.get());
        });
    }

    /** The report's results and error, and its placeholder times replaced by the job's real ones (seed 001). */
    private void writeReport(Handle h, Job done, String results, String error, Instant now) {
        Instant start = done.started() != null ? done.started() : done.claimed();
        statements
                .on(
                        h,
                        "UPDATE report SET results = :results, error = :error, modified = :now,"
                                + " start_time = COALESCE(:start, start_time), end_time = COALESCE(:end, end_time) WHERE id = :id")
                .bind("results", results)
                .bind("error", error)
                .bind("now", micros(now))
                .bind("start", micros(start))
                .bind("end", micros(done.completed()))
                .bind("id", done.reportId())
                .execute();
    }

    /** {@code start}'s attempt: its start time (PostgreSQL, beside the job's compare-and-set). */
    private static final String ATTEMPT_STARTED = "UPDATE job_attempt SET started = :now FROM j"
            + " WHERE job_attempt.job_id = j.id AND job_attempt.lease = :lease";

    /** What {@link #closeCompletedAttempt} writes, beside the job's compare-and-set. */
    private static final String ATTEMPT_COMPLETED =
            "UPDATE job_attempt SET ended = :now, outcome = :outcome, output = :output, end_reason = NULL,"
                    + " exit_code = NULL, retry_decision = NULL FROM j WHERE job_attempt.job_id = j.id AND job_attempt.lease = :lease";

    /** What {@link #writeReport} writes for {@code process}, beside the job's compare-and-set. */
    private static final String REPORT_PROCESSED =
            "UPDATE report SET results = :results, error = :error, modified = :now,"
                    + " start_time = COALESCE(j.started, j.claimed, report.start_time), end_time = COALESCE(j.completed, report.end_time)"
                    + " FROM j WHERE report.id = j.report_id";

    /**
     * The attempt of {@code lease} ends completed, keeping {@code output}: also when it was closed
     * already (completed after a heartbeat-timeout failure: the runner is the authority), and then
     * its failure's classification (end reason, exit code, retry decision) is forgotten, so the
     * row never keeps the overridden word's reason or output.
     */
    private void closeCompletedAttempt(Handle h, Job job, LeaseId lease, Instant now, byte[] output) {
        statements
                .on(
                        h,
                        "UPDATE job_attempt SET ended = :now, outcome = :outcome, output = :output, end_reason = NULL,"
                                + " exit_code = NULL, retry_decision = NULL WHERE job_id = :job AND lease = :lease")
                .bind("now", micros(now))
                .bind("outcome", AttemptOutcome.COMPLETED.code())
                .bind("output", output)
                .bind("job", job.id())
                .bind("lease", lease.value())
                .execute();
    }

    private static Transition applied(Job job) {
        return new Transition(Transition.Result.APPLIED, job);
    }

    /**
     * The compare-and-set itself: {@code UPDATE job SET <set>, modified WHERE uuid AND <expected>},
     * returning the row as changed, or empty when the expectation did not hold (zero rows).
     */
    private Optional<Job> cas(
            Handle h, String set, String expected, JobUuid job, Instant now, java.util.function.Consumer<Sql> binds) {
        return cas(h, set, expected, null, job, now, binds);
    }

    /**
     * The same with {@code alongside} (PostgreSQL, null elsewhere): a further data-modifying
     * statement over the changed row, named {@code j}, in the same statement as a common table
     * expression, so the job and its attempt (or report) change in one round trip. It sees the
     * job's row as changed (RETURNING) and runs only when the compare-and-set changed a row: the
     * fencing is the job's {@code WHERE}, as before.
     */
    private Optional<Job> cas(
            Handle h,
            String set,
            String expected,
            String alongside,
            JobUuid job,
            Instant now,
            java.util.function.Consumer<Sql> binds) {
        String update = "UPDATE job SET " + set + ", modified = :now WHERE uuid = :uuid AND " + expected + " RETURNING "
                + Rows.JOB;
        Sql q = statements
                .on(
                        h,
                        alongside == null
                                ? update
                                : "WITH j AS (" + update + "), alongside AS (" + alongside + ") SELECT " + Rows.JOB
                                        + " FROM j")
                .bind("now", micros(now))
                .bind("uuid", job.toString());
        binds.accept(q);
        return q.findOne(jobRows);
    }

    /**
     * Zero rows changed: re-read and say why. A lease that is not the job's current one is
     * STALE whatever the status; under the current lease a job already in one of
     * {@code duplicates} is a resend (DUPLICATE); anything else is a CONFLICT.
     */
    private Transition classify(Handle h, JobUuid uuid, LeaseId lease, Set<JobStatus> duplicates) {
        Optional<Job> found = context.job(h, uuid);
        if (found.isEmpty()) return new Transition(Transition.Result.NOT_FOUND, null);
        Job job = found.get();
        if (lease != null && !job.holds(lease)) return new Transition(Transition.Result.STALE, job);
        if (duplicates.contains(job.status())) return new Transition(Transition.Result.DUPLICATE, job);
        return new Transition(Transition.Result.CONFLICT, job);
    }

    /** Sets {@code set} (e.g. the start time) on the attempt of {@code lease}. */
    private void closeAttempt(Handle h, Job job, LeaseId lease, String set, Instant now) {
        statements
                .on(h, "UPDATE job_attempt SET " + set + " WHERE job_id = :job AND lease = :lease")
                .bind("now", micros(now))
                .bind("job", job.id())
                .bind("lease", lease.value())
                .execute();
    }

    /**
     * Ends the attempt of {@code lease}, which keeps {@code output} (null: none on the row, it is
     * in the blob storage); {@code override} also rewrites an attempt already closed (completed
     * after failed), output included, so the row never keeps the overridden word's output.
     */
    private void closeAttempt(
            Handle h, Job job, LeaseId lease, AttemptOutcome outcome, Instant now, boolean override, byte[] output) {
        statements
                .on(
                        h,
                        "UPDATE job_attempt SET ended = :now, outcome = :outcome, output = :output WHERE job_id = :job AND lease = :lease"
                                + (override ? "" : " AND outcome IS NULL"))
                .bind("now", micros(now))
                .bind("outcome", outcome.code())
                .bind("output", output)
                .bind("job", job.id())
                .bind("lease", lease.value())
                .execute();
    }

    private Optional<Attempt> attemptByLease(Handle h, JobUuid job, LeaseId lease) {
        return statements
                .on(
                        h,
                        "SELECT " + Rows.ATTEMPT
                                + " FROM job_attempt WHERE job_id = (SELECT id FROM job WHERE uuid = :uuid)"
                                + " AND lease = :lease")
                .bind("uuid", job.toString())
                .bind("lease", lease.value())
                .findOne(Rows::attempt);
    }
}

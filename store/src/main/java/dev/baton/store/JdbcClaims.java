package dev.baton.store;

import static dev.baton.store.ClaimSql.CLAIM_ORDER;
import static dev.baton.store.ClaimSql.candidates;
import static dev.baton.store.Rows.micros;

import dev.baton.protocol.id.LeaseId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;

/**
 * The claim: pending → claimed, one job or a pump's worth; the dialect picks the candidate (see
 * {@link SqlDialect#claim}) and hands it back to {@link #applyClaim}.
 */
final class JdbcClaims implements Claims {
    private final StoreContext context;
    private final SqlDialect dialect;
    private final Statements statements;
    private final JobRows jobRows;

    JdbcClaims(StoreContext context, SqlDialect dialect) {
        this.context = context;
        this.dialect = dialect;
        this.statements = context.statements;
        this.jobRows = context.jobRows;
    }

    /**
     * One claim with a lease the caller chose, in a write transaction of its own: what
     * {@link #claimEach} does per job. Production claims with {@code claimEach}; the tests' fixture
     * ({@code TestClaims}) claims with this, to know the lease beforehand.
     */
    Optional<Job> claim(long runnerId, LeaseId lease, Instant now, Instant acceptUntil, ClaimFilter filter) {
        return context.write(h -> claimIn(h, runnerId, lease, now, acceptUntil, filter));
    }

    @Override
    public List<List<Job>> claimEach(List<ClaimRequest> requests, Instant now, Instant acceptUntil) {
        if (requests.isEmpty()) return List.of();
        return context.write(h -> {
            Set<Set<Long>> exhausted = new HashSet<>();
            List<List<Job>> claimed = new ArrayList<>(requests.size());
            for (ClaimRequest r : requests) {
                if (exhausted.contains(r.specIds())) {
                    claimed.add(List.of());
                    continue;
                }
                List<Job> jobs = claimFor(h, r, now, acceptUntil);
                if (jobs.size() < r.slots() && emptyForEveryRunnerOf(h, r)) exhausted.add(r.specIds());
                claimed.add(jobs);
            }
            return claimed;
        });
    }

    /**
     * Up to the request's slots jobs for its runner, in the caller's transaction: one request of
     * {@link #claimEach}, and the claim a submission makes in its own commit ({@link
     * Runs#createRunAndClaim}, decision 0063).
     */
    List<Job> claimFor(Handle h, ClaimRequest r, Instant now, Instant acceptUntil) {
        List<Job> jobs = new ArrayList<>();
        while (jobs.size() < r.slots()) {
            Optional<Job> job = claimIn(h, r.runnerId(), LeaseId.random(), now, acceptUntil, r.filter());
            if (job.isEmpty()) break;
            jobs.add(job.get());
        }
        return jobs;
    }

    /**
     * One claim in the caller's transaction: the dialect picks the candidate, and takes it with
     * {@link #applyClaim} or, where it can, in the statement that found it ({@link ClaimWrite}).
     */
    private Optional<Job> claimIn(
            Handle h, long runnerId, LeaseId lease, Instant now, Instant acceptUntil, ClaimFilter filter) {
        return dialect.claim(
                statements,
                h,
                new ClaimWrite(runnerId, lease, now, acceptUntil, filter, jobRows),
                jobId -> applyClaim(h, jobId, runnerId, lease, now, acceptUntil, filter));
    }

    /**
     * Whether request {@code r}'s empty claim means that no other runner of its specs would find
     * a job either (in this transaction): not when the emptiness may be its own — its declines,
     * its archive or quarantine, labels a pending job requires, or another runner's canary.
     */
    private boolean emptyForEveryRunnerOf(Handle h, ClaimRequest r) {
        if (r.declinedSome()) return false;
        if (r.specIds().isEmpty()) return true;
        boolean eligible = statements
                .on(
                        h,
                        "SELECT 1 FROM runner WHERE id = :runner AND archived IS NULL AND quarantined IS NULL AND ephemeral = 0")
                .bind("runner", r.runnerId())
                .exists();
        if (!eligible) return false;
        // A pending job of the set that requires labels may be claimable by a runner that has them;
        // a canary job by its runner only (docs/scheduling.md, "Canary release"), a job reserved for
        // a single-job runner by that runner only (issue 43).
        String ids = r.specIds().stream().map(String::valueOf).collect(Collectors.joining(", "));
        return !statements
                .once(
                        h,
                        "SELECT 1 FROM job j WHERE j.status = 0 AND j.spec_id IN (" + ids + ")"
                                + " AND (j.canary_runner_id IS NOT NULL OR j.bound_runner_id IS NOT NULL OR EXISTS (SELECT 1 FROM job_label jl WHERE jl.job_id = j.id AND jl.required = 1)) LIMIT 1")
                .exists();
    }

    /**
     * pending → claimed for a job the caller has made sure it may take, opening the attempt in the
     * same transaction and recording whether the runner held the job's image ({@code filter}).
     * Empty (nothing changed) when the job is no longer pending.
     */
    Optional<Job> applyClaim(
            Handle h, long jobId, long runnerId, LeaseId lease, Instant now, Instant acceptUntil, ClaimFilter filter) {
        ClaimWrite write = new ClaimWrite(runnerId, lease, now, acceptUntil, filter, jobRows);
        Optional<Job> job = write.bind(statements.on(
                        h, "UPDATE job SET " + ClaimWrite.SET + " WHERE id = :id AND status = 0 RETURNING " + Rows.JOB))
                .bind("id", jobId)
                .findOne(jobRows);
        job.ifPresent(j -> write.bind(statements.on(
                        h,
                        "INSERT INTO job_attempt (" + ClaimWrite.ATTEMPT_COLUMNS
                                + ") VALUES (:job, :number, :lease, :runner, :now, :warm, " + ClaimWrite.MACHINE
                                + ")"))
                .bind("job", j.id())
                .bind("number", j.attempt())
                .bind("warm", warmCode(filter.warm(j.config().digest())))
                .execute());
        return job;
    }

    /** job_attempt.warm: 1 warm, 0 cold, NULL unknown (an INTEGER in both dialects). */
    private static Integer warmCode(Boolean warm) {
        return warm == null ? null : warm ? 1 : 0;
    }

    @Override
    public Optional<dev.baton.protocol.value.ImageDigest> nextImage(long runnerId, Instant now, ClaimFilter filter) {
        // The claim's own candidates and order, so the answer is the job the claim would take.
        String head = candidates("job j") + filter.condition() + filter.order(CLAIM_ORDER) + " LIMIT 1";
        return context.read(h -> h.createQuery("SELECT n.config FROM job n JOIN (" + head + ") c ON c.id = n.id")
                .bind("runner", runnerId)
                .bind("now", micros(now))
                .mapTo(String.class)
                .findOne()
                .map(config -> Rows.config(config).digest()));
    }
}

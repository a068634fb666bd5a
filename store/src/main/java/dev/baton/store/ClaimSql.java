package dev.baton.store;

import org.jdbi.v3.core.Handle;

/**
 * The SQL that decides which pending jobs a runner may claim and in which order, shared by both
 * dialects' claims, the transitions that count a spec's serving runners, and the queue status.
 */
final class ClaimSql {
    private ClaimSql() {}

    /** The concurrency limits of a pending job {@code j}: ≥200 none, 100–199 per organization, &lt;100 per source IP. */
    static final String TIER_LIMITS = "(j.priority >= 200"
            + " OR (j.priority >= 100 AND NOT EXISTS (SELECT 1 FROM job o WHERE o.organization_id = j.organization_id AND o.status IN (1, 2)))"
            + " OR (j.priority < 100 AND NOT EXISTS (SELECT 1 FROM job o WHERE o.source_ip = j.source_ip AND o.status IN (1, 2))))";

    /**
     * Pending jobs this runner may claim: its specs only (none if the runner is archived or
     * quarantined, except the canary jobs for it; nobody else's canary), not declined by it in the current round (see {@link #DECLINED_THIS_ROUND}),
     * none of whose required labels it lacks, past any retry backoff, within the tier limits. The limits read committed
     * in-flight rows; each dialect makes sure no concurrent claim slips between this read and the
     * update.
     *
     * @param jobTable the FROM item for the job table aliased {@code j}, where a dialect may pin
     *                 the pending index
     */
    static String candidates(String jobTable) {
        return "SELECT j.id, j.priority, j.organization_id, j.source_ip FROM " + jobTable
                + " WHERE j.status = 0"
                + " AND j.spec_id IN (SELECT rs.spec_id FROM runner_spec rs WHERE rs.runner_id = :runner)"
                + MAY_CLAIM;
    }

    /**
     * The same candidates as {@link #candidates} in {@link #PLAIN_CLAIM_ORDER}, found without
     * sorting the queue: per spec of the runner, the first claimable job walking the pending index
     * in its order (stopping there), then the first of those. Only for that order: a preferred
     * label or project changes the order within a spec. {@code extra} is an added condition on
     * {@code j} (a router's spec ids, candidates skipped).
     */
    static String plainClaim(String jobTable, String extra) {
        return "SELECT j.id, j.priority, j.organization_id, j.source_ip FROM job j WHERE j.id IN ("
                + firstOfEachSpec(jobTable, extra, "") + ")" + PLAIN_CLAIM_ORDER + " LIMIT 1";
    }

    /**
     * {@link #plainClaim(String, String)} for PostgreSQL. The first jobs come as an array, so the
     * job rows are fetched by primary key: with {@code IN} and statistics the planner hashed them
     * against a scan of the whole job table. {@code headLock} ends each spec's walk: with
     * {@code FOR UPDATE OF j SKIP LOCKED} the walk passes rows another claim holds and locks the
     * first free one, where without it a held first row hides the whole spec. The outer
     * {@code status = 0} is what the row lock re-checks on a row another claim took meanwhile
     * (the array was computed before): without it that job came back as a candidate.
     */
    static String plainClaimByIds(String extra, String headLock) {
        return "SELECT j.id, j.priority, j.organization_id, j.source_ip FROM job j WHERE j.id = ANY (ARRAY("
                + firstOfEachSpec("job j", extra, headLock) + ")) AND j.status = 0" + PLAIN_CLAIM_ORDER + " LIMIT 1";
    }

    /** The first claimable job of each of the runner's specs, in {@link #PLAIN_CLAIM_ORDER} (null for a spec with none). */
    private static String firstOfEachSpec(String jobTable, String extra, String headLock) {
        return "SELECT (SELECT j.id FROM " + jobTable + " WHERE j.status = 0 AND j.spec_id = rs.spec_id" + MAY_CLAIM
                + extra + PLAIN_CLAIM_ORDER + " LIMIT 1" + headLock
                + ") FROM runner_spec rs WHERE rs.runner_id = :runner";
    }

    /**
     * Whether runner {@code :runner} has label {@code jl} among its effective labels: set by the
     * admin, or reported by the runner with no admin label of that key hiding it.
     */
    static String runnerHasLabel(String runner) {
        return "EXISTS (SELECT 1 FROM runner_label rl WHERE rl.runner_id = " + runner + " AND rl.key = jl.key"
                + " AND rl.value = jl.value AND (rl.source = 'admin' OR NOT EXISTS (SELECT 1 FROM runner_label ra WHERE ra.runner_id = "
                + runner
                + " AND ra.key = jl.key AND ra.source = 'admin')))";
    }

    static final String RUNNER_HAS_LABEL = runnerHasLabel(":runner");

    /** Runner {@code rs.runner_id} has every label job {@code :job} requires. */
    static final String SERVING_RUNNER_HAS_REQUIRED_LABELS =
            "NOT EXISTS (SELECT 1 FROM job_label jl WHERE jl.job_id = :job" + " AND jl.required = 1 AND NOT "
                    + runnerHasLabel("rs.runner_id") + ")";

    /**
     * Whether decline {@code a} of job {@code j} still excludes its runner at {@code :now}: before
     * any decline back-off every decline does; during a back-off every decline does (all runners
     * of the spec had declined; a runner that never declined may still take the job); after it,
     * only declines since it ended (a new round: a decline may have been transient).
     */
    static final String DECLINED_THIS_ROUND =
            "(j.decline_backoff_until IS NULL OR j.decline_backoff_until > :now OR a.ended >= j.decline_backoff_until)";

    /**
     * The claim order when no candidate has a preferred label ({@link #CLAIM_ORDER} then ranks
     * every candidate equal on labels): the pending index's own order, so a claim walks that
     * index and stops at the first claimable row instead of sorting the whole queue of its specs.
     */
    static final String PLAIN_CLAIM_ORDER = " ORDER BY j.priority DESC, j.created ASC, j.id ASC";

    /**
     * Whether any pending job of runner {@code :runner}'s specs has a preferred label: one probe of
     * {@code index_job_pending_preferred}, which holds only such jobs (usually none). If none has,
     * {@link #PLAIN_CLAIM_ORDER} picks the same job as {@link #CLAIM_ORDER}.
     */
    static final String ANY_PENDING_PREFERRED =
            "SELECT EXISTS (SELECT 1 FROM job k WHERE k.status = 0 AND k.preferred_labels > 0"
                    + " AND k.spec_id IN (SELECT rs.spec_id FROM runner_spec rs WHERE rs.runner_id = :runner)) AS any_preferred";

    /**
     * Whether a claim by this runner now must rank candidates by preferred labels
     * ({@link #CLAIM_ORDER}, which sorts every candidate): only when a pending job of its specs
     * has one. Otherwise {@link #plainClaim} picks the same job and stops early, so a claim does
     * not cost in proportion to the queue.
     */
    static boolean anyPendingPreferred(Statements statements, Handle h, long runnerId) {
        return statements
                .on(h, ANY_PENDING_PREFERRED)
                .bind("runner", runnerId)
                .one(rs -> rs.getBoolean("any_preferred"));
    }

    /** Dispatch order without a runner: priority, then oldest first. */
    static final String QUEUE_ORDER = " ORDER BY j.priority DESC, j.created ASC, j.id ASC";

    /**
     * Within a priority, jobs with more of their preferred labels on this runner first (a runner
     * that has them takes such a job before one that lacks them would); then oldest first.
     */
    static final String CLAIM_ORDER =
            " ORDER BY j.priority DESC, (SELECT COUNT(*) FROM job_label jl WHERE jl.job_id = j.id AND jl.required = 0 AND "
                    + RUNNER_HAS_LABEL + ") DESC, j.created ASC, j.id ASC";

    /**
     * Runner {@code r} is a single-job runner that has had its attempt and that attempt ended
     * (issue 43): it takes no job and its key is refused.
     */
    static final String SPENT = "r.ephemeral = 1 AND EXISTS (SELECT 1 FROM job_attempt sa WHERE sa.runner_id = r.id"
            + " AND sa.ended IS NOT NULL)";

    /**
     * Single-job runners (issue 43): runner {@code r} takes job {@code j} only if it is not
     * single-job, or it has had no attempt yet and is bound to no job or to {@code j}. The job side:
     * a job reserved for a bound runner is taken by that runner only, while that runner is live
     * (not archived) and has had no attempt of it that ended; after that anyone may take it. Both
     * subqueries run only for single-job runners and reserved jobs (the ORs stop before them).
     */
    static final String SINGLE_JOB = " AND (r.ephemeral = 0 OR ((r.bound_job_id IS NULL OR r.bound_job_id = j.id)"
            // :runner, not r.id: uncorrelated, so PostgreSQL probes the runner's attempts once per
            // claim by index instead of hashing every attempt of every runner.
            + " AND NOT EXISTS (SELECT 1 FROM job_attempt ua WHERE ua.runner_id = :runner)))";

    static final String RESERVED = " AND (j.bound_runner_id IS NULL OR j.bound_runner_id = :runner"
            // A scalar subquery, not OR EXISTS: PostgreSQL would hash the whole runner and
            // job_attempt tables for an OR EXISTS; this one runs only for a reserved job, by key.
            + " OR (SELECT b.archived IS NOT NULL OR EXISTS (SELECT 1 FROM job_attempt ba WHERE ba.runner_id = b.id"
            + " AND ba.ended IS NOT NULL) FROM runner b WHERE b.id = j.bound_runner_id))";

    /** What a pending job {@code j} of one of the runner's specs must also meet to be claimed by {@code :runner}. */
    private static final String MAY_CLAIM =
            " AND EXISTS (SELECT 1 FROM runner r WHERE r.id = :runner AND r.archived IS NULL AND (r.quarantined IS NULL OR j.canary_runner_id = :runner)"
                    + SINGLE_JOB + ")"
                    + RESERVED
                    + " AND (j.canary_runner_id IS NULL OR j.canary_runner_id = :runner)"
                    + " AND (j.not_before IS NULL OR j.not_before <= :now)"
                    + " AND NOT EXISTS (SELECT 1 FROM job_attempt a WHERE a.job_id = j.id AND a.runner_id = :runner AND a.outcome = 3"
                    + " AND " + DECLINED_THIS_ROUND + ")"
                    + " AND NOT EXISTS (SELECT 1 FROM job_label jl WHERE jl.job_id = j.id AND jl.required = 1 AND NOT "
                    + runnerHasLabel(":runner") + ")"
                    + " AND " + TIER_LIMITS;
}

package dev.baton.store;

import static dev.baton.store.ClaimSql.TIER_LIMITS;
import static dev.baton.store.Rows.micros;

import dev.baton.protocol.value.Slug;
import java.time.Instant;
import java.util.List;

/**
 * A pending job's queue status ({@link Runs#pendingFacts}): who serves its spec, how many jobs
 * are ahead of it, and how long recent runs took. Its own class because the statements are long
 * and tuned per dialect (ADR 0021, decision 0033), and share nothing with a run's submission or
 * the plain reads of {@link JdbcRuns} but the store's context.
 */
final class JdbcPendingFacts {
    /**
     * Jobs in flight on the runners serving {@code :spec}, counted per serving runner (one
     * runner_spec row each) by a correlated count, so that each is a plain probe of
     * index_job_runner_in_flight with or without statistics. Plain index scans mark the entries
     * of dead rows as they pass; the former count (and a join, once statistics exist) ran as
     * bitmap scans over every in-flight entry, which never mark them, and read thousands of dead
     * entries on every submission under churn (ADR 0021).
     */
    static final String IN_FLIGHT_ON_SERVING_RUNNERS =
            "(SELECT COALESCE(SUM((SELECT COUNT(*) FROM job o WHERE o.runner_id = rs.runner_id"
                    + " AND o.status IN (1, 2))), 0) FROM runner_spec rs WHERE rs.spec_id = :spec)";

    /**
     * The specs whose jobs compete with a job of {@code :spec}: its own and every other spec the
     * runners of {@code :spec} serve, one list, so the jobs ahead are counted in one walk of the
     * pending index per spec (an OR of the two made SQLite collect and deduplicate row ids).
     */
    private static final String COMPETING_SPECS = "SELECT :spec AS id UNION SELECT rs2.spec_id FROM runner_spec rs2"
            + " JOIN runner r2 ON r2.id = rs2.runner_id AND r2.archived IS NULL WHERE rs2.runner_id IN (SELECT rs.runner_id FROM runner_spec rs WHERE rs.spec_id = :spec)";

    /** The pending jobs before job {@code :id} in dispatch order, counted one by one. */
    static final String AHEAD =
            "(SELECT COUNT(*) FROM job o WHERE o.status = 0 AND o.spec_id IN (" + COMPETING_SPECS + ")"
                    + " AND (o.priority > :priority OR (o.priority = :priority AND (o.created < :created OR (o.created = :created AND o.id < :id)))))";

    /** The serving runners of {@code :spec} (not archived), and those of them live: not quarantined, heartbeat at or after {@code :fresh}. */
    private static final String SERVING_RUNNERS = "(SELECT COUNT(*) AS serving,"
            + " COALESCE(SUM(CASE WHEN r.quarantined IS NULL AND r.last_heartbeat >= :fresh THEN 1 ELSE 0 END), 0) AS fresh"
            + " FROM runner r JOIN runner_spec rs ON rs.runner_id = r.id WHERE rs.spec_id = :spec AND r.archived IS NULL) sv";

    /** How many runner pools start machines of {@code :spec}: the explanation reads the pools only when some do. */
    private static final String POOLS = "(SELECT COUNT(*) FROM pool p WHERE p.spec_id = :spec)";

    /** Whether job {@code :id} is held back by its tier's concurrency limit (1) or not (0). */
    private static final String TIER_LIMITED =
            "(SELECT COUNT(*) FROM job j WHERE j.id = :id AND NOT " + TIER_LIMITS + ")";

    /** The last {@code limit} finished runs of {@code :spec} that started: how many, and their run times' sum. */
    private static String recentRuns(String limit) {
        return "(SELECT COUNT(*) AS runs, COALESCE(SUM(d.completed - d.started), 0) AS run_micros FROM"
                + " (SELECT started, completed FROM job WHERE spec_id = :spec AND status IN (3, 6) AND started IS NOT NULL"
                + " ORDER BY completed DESC LIMIT " + limit + ") d) rr";
    }

    /**
     * Every count of a pending job's queue status and the recent run times' sum in one statement
     * (one round trip, one snapshot): this read runs on every submission. Jobs compete when a
     * runner of this job's spec could take them. The run times are summed rather than listed: the
     * mean is all the estimate uses. PostgreSQL's form; SQLite's is {@link #PENDING_FACTS_FROM_COUNTS}.
     */
    static final String PENDING_FACTS =
            "SELECT sv.serving, sv.fresh, rr.runs, rr.run_micros, " + AHEAD + " AS ahead, -1 AS behind,"
                    + " " + IN_FLIGHT_ON_SERVING_RUNNERS + " AS in_flight, " + TIER_LIMITED + " AS limited,"
                    + " " + POOLS + " AS pools"
                    + " FROM " + SERVING_RUNNERS + ", " + recentRuns(":n");

    /** How far SQLite walks the jobs behind a job: one further from the end of its queue has its jobs ahead walked instead. */
    static final int BEHIND_WALK = 64;

    /**
     * SQLite's queue facts (decision 0033): {@link #PENDING_FACTS} with the jobs ahead taken from
     * the kept counts. Per competing spec: its pending jobs at {@code :priority} or above from the
     * counts V21's triggers keep, and those at {@code :priority} at or behind job {@code :id} (the
     * job itself included when pending) walked in the pending index up to {@link #BEHIND_WALK} (a
     * per-spec total of that many means "further from the end"). The first sum minus the second is
     * the jobs ahead: a new submission, last in its queue, walks itself instead of every job before it.
     *
     * <p>The limit is {@code :n + 0}, not {@code :n}: SQLite (3.47) reads a LIMIT that is a bare
     * parameter while compiling, and marks the statement to be compiled again whenever that
     * parameter is bound, which is every use. That compile was about three quarters of this
     * statement's time (135 µs a call against 27 µs with the expression, on a bench-like file).
     */
    static final String PENDING_FACTS_FROM_COUNTS =
            "SELECT sv.serving, sv.fresh, rr.runs, rr.run_micros, q.ahead, q.behind,"
                    + " " + IN_FLIGHT_ON_SERVING_RUNNERS + " AS in_flight, " + TIER_LIMITED + " AS limited,"
                    + " " + POOLS + " AS pools"
                    + " FROM " + SERVING_RUNNERS + ", " + recentRuns(":n + 0") + ","
                    + " (SELECT COALESCE(SUM((SELECT COALESCE(SUM(pc.n), 0) FROM pending_count pc WHERE pc.spec_id = cs.id AND pc.priority >= :priority)), 0) AS ahead,"
                    + " COALESCE(SUM((SELECT COUNT(*) FROM (SELECT 1 FROM job o WHERE o.status = 0 AND o.spec_id = cs.id AND o.priority = :priority"
                    + " AND (o.created, o.id) >= (:created, :id) LIMIT " + BEHIND_WALK + "))), 0) AS behind"
                    + " FROM (" + COMPETING_SPECS + ") cs) q";

    /**
     * SQLite: the jobs ahead of job {@code :id} walked, per competing spec, as two ranges of the
     * pending index (higher priority; same priority and earlier), so only jobs ahead are read.
     */
    static final String AHEAD_WALKED =
            "SELECT COALESCE(SUM((SELECT COUNT(*) FROM job o WHERE o.status = 0 AND o.spec_id = cs.id AND o.priority > :priority)"
                    + " + (SELECT COUNT(*) FROM job o WHERE o.status = 0 AND o.spec_id = cs.id AND o.priority = :priority AND (o.created, o.id) < (:created, :id))), 0)"
                    + " AS ahead FROM (" + COMPETING_SPECS + ") cs";

    private final StoreContext context;
    private final SqlDialect dialect;
    private final Statements statements;

    JdbcPendingFacts(StoreContext context, SqlDialect dialect) {
        this.context = context;
        this.dialect = dialect;
        this.statements = context.statements;
    }

    /** The queue status of {@code job}; see {@link Runs#pendingFacts}. */
    PendingFacts read(Job job, int recentRuns, Instant freshSince) {
        // Runners at or after this heartbeat time (and not quarantined) are only counted; with no
        // time, none is (Long.MAX_VALUE: every serving runner is listed). The cutoff is rounded up
        // to the stored microsecond, so "at or after" means what Instant.isBefore means.
        long fresh = freshSince == null ? Long.MAX_VALUE : ceilMicros(freshSince);
        return context.readPlain(h -> {
            long[] counts = statements
                    .on(h, dialect.keepsPendingCounts() ? PENDING_FACTS_FROM_COUNTS : PENDING_FACTS)
                    .bind("spec", job.specId())
                    .bind("priority", job.priority())
                    .bind("created", micros(job.created()))
                    .bind("id", job.id())
                    .bind("fresh", fresh)
                    .bind("n", recentRuns)
                    .one(rs -> new long[] {
                        rs.getLong("serving"),
                        rs.getLong("fresh"),
                        rs.getLong("runs"),
                        rs.getLong("run_micros"),
                        rs.getLong("ahead"),
                        rs.getLong("in_flight"),
                        rs.getLong("limited"),
                        rs.getLong("behind"),
                        rs.getLong("pools")
                    });
            long behind = counts[7];
            if (behind >= BEHIND_WALK) {
                // Far from the end of its queue: the jobs ahead are walked (a later snapshot, like the list below).
                counts[4] = statements
                        .on(h, AHEAD_WALKED)
                        .bind("spec", job.specId())
                        .bind("priority", job.priority())
                        .bind("created", micros(job.created()))
                        .bind("id", job.id())
                        .one(rs -> rs.getLong("ahead"));
            } else if (behind >= 0) {
                counts[4] -= behind;
            }
            // The rest of the serving runners, by row, only when there are any: quarantined ones,
            // and ones whose heartbeat is older (they may still hold a channel to this node). A
            // runner that changed between the two statements may be counted in neither or both:
            // the answer is a snapshot for a person to read, and was never one transaction.
            List<ServingRunner> listed = counts[0] == counts[1]
                    ? List.of()
                    : statements
                            .on(
                                    h,
                                    "SELECT r.id, r.slug, r.quarantined, r.last_heartbeat FROM runner r JOIN runner_spec rs ON rs.runner_id = r.id"
                                            + " WHERE rs.spec_id = :spec AND r.archived IS NULL"
                                            + " AND (r.quarantined IS NOT NULL OR r.last_heartbeat IS NULL OR r.last_heartbeat < :fresh) ORDER BY r.created, r.id")
                            .bind("spec", job.specId())
                            .bind("fresh", fresh)
                            .list(rs -> new ServingRunner(
                                    rs.getLong("id"),
                                    new Slug(rs.getString("slug")),
                                    Rows.instant(rs, "quarantined") != null,
                                    Rows.instant(rs, "last_heartbeat")));
            return new PendingFacts(
                    listed,
                    (int) counts[1],
                    (int) counts[4],
                    (int) counts[5],
                    counts[6] > 0,
                    (int) counts[2],
                    counts[3],
                    counts[8] > 0);
        });
    }

    /** Microseconds since the epoch, rounded up: a stored time {@code t} is {@code >=} the result exactly when it is not before {@code instant}. */
    private static long ceilMicros(Instant instant) {
        long micros = Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
        return instant.getNano() % 1000 == 0 ? micros : micros + 1;
    }
}

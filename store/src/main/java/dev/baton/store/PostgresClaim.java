package dev.baton.store;

import static dev.baton.store.ClaimSql.ANY_PENDING_PREFERRED;
import static dev.baton.store.ClaimSql.plainClaimByIds;

import java.util.Optional;

/**
 * PostgreSQL's claim in one round trip (decision 0059): the statement that finds a runner's next
 * job also tries its tier-limit locks, takes it and opens its attempt, where before a claim was
 * five to seven statements (any preferred labels pending, the first walk, the walk past held
 * heads, the advisory locks, the job's update, the attempt's insert).
 *
 * <p>The fencing is the separate statements', in one snapshot: the candidate is the plain walk
 * ({@link ClaimSql#plainClaimByIds}, first without then with passing held heads, the second run
 * only when the first finds nothing), locked {@code FOR UPDATE SKIP LOCKED}; the advisory locks
 * are tried on it exactly as {@link PostgresDialect#lockLimitKeys} does; the job's update is
 * the same compare-and-set on pending, and the attempt is inserted from the rows it changed.
 * Only a job with no tier limit (priority ≥ 200) is taken here: a limited one must re-read its
 * limit in a statement whose snapshot is taken after its lock is held, so the statement hands it
 * back locked and the caller re-checks and takes it as before. When a pending job of the runner's
 * specs has a preferred label, the walk's order is not the claim order: the walk then finds
 * nothing (an uncorrelated condition, a one-time filter), and the caller claims the long way.
 */
final class PostgresClaim {
    private PostgresClaim() {}

    /**
     * What the statement did: whether a preferred label is pending (nothing was looked at), the
     * candidate it found and locked (null: none), whether its advisory locks were had, and the job
     * when it took it.
     */
    record Outcome(boolean anyPreferred, PostgresDialect.Candidate candidate, boolean locked, Optional<Job> job) {}

    /** The statement for a filter that adds {@code extra} to the walk (constant for a plain runner). */
    static String statement(String extra) {
        String walkExtra = extra + " AND NOT (SELECT any_preferred FROM p)";
        String lock = " FOR UPDATE OF j SKIP LOCKED";
        return "WITH p AS MATERIALIZED (" + ANY_PENDING_PREFERRED + "),"
                + " c AS MATERIALIZED (SELECT * FROM (" + plainClaimByIds(walkExtra, "") + lock + ") f"
                + " UNION ALL SELECT * FROM (" + plainClaimByIds(walkExtra, lock) + lock + ") s LIMIT 1),"
                + " l AS MATERIALIZED (SELECT c.id AS c_id, c.priority AS c_priority, c.organization_id AS c_org,"
                + " c.source_ip AS c_ip, "
                + tryLock("c.priority >= 100 AND c.priority < 200", ":orgKind", "c.organization_id::text")
                + " AND " + tryLock("c.priority < 100", ":ipKind", "c.source_ip") + " AS c_locked FROM c),"
                + " j AS (UPDATE job SET " + ClaimWrite.SET + " FROM l WHERE job.id = l.c_id AND l.c_locked"
                + " AND l.c_priority >= 200 AND job.status = 0 RETURNING " + Rows.JOB + "),"
                + " a AS (INSERT INTO job_attempt (" + ClaimWrite.ATTEMPT_COLUMNS
                + ") SELECT j.id, j.attempt, :lease, :runner, :now, "
                + ClaimWrite.warmSql("j") + ", " + ClaimWrite.MACHINE + " FROM j)"
                + " SELECT (SELECT any_preferred FROM p) AS c_any_preferred, l.*, j.* FROM (SELECT 1) one"
                + " LEFT JOIN l ON true LEFT JOIN j ON true";
    }

    /** Exclusive where the candidate's own limit reads the key, shared elsewhere; the key as {@link PostgresDialect#lockLimitKeys} makes it. */
    private static String tryLock(String exclusiveWhen, String kind, String key) {
        String hash = "(" + kind + ", hashtext(current_schema() || ':' || " + key + "))";
        return "(CASE WHEN " + exclusiveWhen + " THEN pg_try_advisory_xact_lock" + hash
                + " ELSE pg_try_advisory_xact_lock_shared" + hash + " END)";
    }

    static Outcome run(Statements statements, org.jdbi.v3.core.Handle h, ClaimWrite write) {
        ClaimFilter filter = write.filter();
        String text = statement(filter.condition());
        Sql sql = filter.addsNoSql() ? statements.on(h, text) : statements.once(h, text);
        return write.bind(sql)
                .bind("held", write.held())
                .bind("orgKind", PostgresDialect.ORGANIZATION_LOCK)
                .bind("ipKind", PostgresDialect.SOURCE_IP_LOCK)
                .one(rs -> {
                    boolean anyPreferred = rs.getBoolean("c_any_preferred");
                    long id = rs.getLong("c_id");
                    if (rs.wasNull()) return new Outcome(anyPreferred, null, false, Optional.empty());
                    PostgresDialect.Candidate c = new PostgresDialect.Candidate(
                            id, rs.getInt("c_priority"), rs.getLong("c_org"), rs.getString("c_ip"));
                    boolean taken = rs.getString("uuid") != null;
                    return new Outcome(
                            anyPreferred,
                            c,
                            rs.getBoolean("c_locked"),
                            taken ? Optional.of(write.rows().read(rs)) : Optional.empty());
                });
    }
}

package dev.baton.store;

import static dev.baton.store.ClaimSql.CLAIM_ORDER;
import static dev.baton.store.ClaimSql.TIER_LIMITS;
import static dev.baton.store.ClaimSql.candidates;
import static dev.baton.store.ClaimSql.plainClaimByIds;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.protocol.id.JobUuid;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * The production store's dialect: PostgreSQL (READ COMMITTED), safe for several server nodes
 * sharing one database.
 *
 * <p>Claim atomicity has two parts. Exclusivity: the candidate row is locked with
 * {@code FOR UPDATE SKIP LOCKED}, and the update is a compare-and-set on status pending, so two
 * claimers never take one job and never wait on each other's candidates.
 *
 * <p>Tier limits: row locks alone cannot enforce "one in flight per organization / source IP" —
 * two claimers can lock two different pending jobs of one free organization, and each one's
 * NOT EXISTS check misses the other's uncommitted claim. So every claim also takes
 * transaction-scoped advisory locks on its job's two limit keys, the organization and the source
 * IP: <em>exclusive</em> on the key its own limit checks (organization for 100–199, IP for
 * &lt;100) and <em>shared</em> on the others (both, for ≥200). Exclusive holders exclude each other
 * and any claim whose new in-flight job would count against them; shared holders (claims whose
 * limit does not read that key, e.g. many team jobs from one IP) never block each other. A
 * limited claim then re-checks its limit in a new statement: under READ COMMITTED that
 * statement's snapshot is taken after the lock is held, and the previous holder of a conflicting
 * lock released it only after its commit was visible, so the re-check sees every earlier claim
 * that counts. The shared side matters because priority is fixed at submission: after a plan
 * change one organization can have team and free jobs, and a racing team claim must count
 * against the free one.
 *
 * <p>The advisory locks are <em>tried</em> ({@code pg_try_advisory_xact_lock[_shared]}), never
 * waited for: a claim holding one key while waiting for another could deadlock with a claim
 * doing the reverse. A busy key means another claim touching that organization or IP is in
 * progress right now; the job is skipped for this claim (never handed out in breach of a limit)
 * and the next candidate is tried. Hash collisions of keys can only cause such a skip, never a
 * breach. See docs/decisions/0001-store-dialects.md.
 */
final class PostgresDialect implements SqlDialect {
    /** Advisory lock class ids (first int of the two-int key), distinct per limit kind. */
    static final int ORGANIZATION_LOCK = 0x42540001;

    static final int SOURCE_IP_LOCK = 0x42540002;
    /** Candidates tried per claim before giving up; only concurrent claims make a candidate fail. */
    private static final int MAX_CANDIDATES = 16;

    /** The store's pool: a connection lost under a transaction evicts its idle siblings. */
    private final HikariDataSource pool;

    PostgresDialect(HikariDataSource pool) {
        this.pool = pool;
    }

    /**
     * Attempts of one transaction whose body failed on a dead connection or a deadlock. After a
     * database restart every pooled connection used in the last half second is handed out once
     * without a check (Hikari's alive-bypass window): with several committers (group commit)
     * and readers that can be more than a few, and each failed try evicts one.
     */
    private static final int MAX_TRIES = 8;

    /**
     * Batches commit on several connections at once: while one waits for its flush, the next
     * runs. Claims never wait on each other (SKIP LOCKED, tried advisory locks); batches that
     * deadlock on rows are re-run like any transaction (below).
     */
    @Override
    public int committers() {
        return 4;
    }

    /**
     * One transaction, re-run when its body failed for a reason that a fresh try can cure: a
     * connection killed under it (a database restart or failover hands the pool dead connections
     * once), a deadlock or a serialization failure. A failure inside the body means the
     * transaction was rolled back, so re-running it applies nothing twice; a failure at commit is
     * ambiguous (it may have committed) and is never retried.
     */
    @Override
    public <T> T transaction(Jdbi jdbi, HandleCallback<T, RuntimeException> work) {
        for (int attempt = 1; ; attempt++) {
            boolean[] inBody = {false};
            try {
                return jdbi.inTransaction(h -> {
                    inBody[0] = true;
                    T result = work.withHandle(h);
                    inBody[0] = false;
                    return result;
                });
            } catch (RuntimeException e) {
                evictIfConnectionLost(e);
                if (!inBody[0] || attempt == MAX_TRIES || !retryable(e)) throw e;
            }
        }
    }

    /** Reads (Jdbi's and plain ones) are retried on a dead connection the same way (they change nothing). */
    @Override
    public <T> T reading(Supplier<T> read) {
        for (int attempt = 1; ; attempt++) {
            try {
                return read.get();
            } catch (RuntimeException e) {
                evictIfConnectionLost(e);
                if (attempt == MAX_TRIES || !retryable(e)) throw e;
            }
        }
    }

    /**
     * One connection killed under us (a database restart, a failover, an administrator) means
     * its siblings in the pool are most likely dead too, and HikariCP hands out a connection used
     * or created within the last 500 ms without checking it: a freshly filled pool of 16 would
     * give the retries dead connection after dead connection. So all idle connections go at once
     * (busy ones when they come back); the retry gets a fresh one.
     */
    private void evictIfConnectionLost(Throwable e) {
        String state = sqlState(e);
        if (state != null && (state.startsWith("08") || state.startsWith("57P"))) {
            var bean = pool.getHikariPoolMXBean();
            if (bean != null) bean.softEvictConnections();
        }
    }

    private static String sqlState(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) return sql.getSQLState();
        }
        return null;
    }

    /** Connection exceptions (08…), server shutdown (57P01–57P03), serialization failure, deadlock. */
    private static boolean retryable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                return state.startsWith("08")
                        || state.startsWith("57P")
                        || state.equals("40001")
                        || state.equals("40P01");
            }
        }
        return false;
    }

    /** A transition and its attempt's (or report's) update in one statement (decision 0053). */
    @Override
    public boolean modifiesInCtes() {
        return true;
    }

    @Override
    public boolean isUniqueViolation(SQLException e) {
        return "23505".equals(e.getSQLState());
    }

    /** A row another node's sweep holds is its to act on; this sweep takes the next. */
    @Override
    public String sweepLock() {
        return " FOR UPDATE SKIP LOCKED";
    }

    /**
     * Job liveness without waiting: rows another transaction holds (a transition of that job in
     * another group-commit batch, which keeps its row locks until the whole batch commits) are
     * skipped and returned, to be written with the next flush. Waiting for them made the
     * heartbeat statement hold every row it had already updated meanwhile: transitions of those
     * jobs queued behind it, and a batch holding one row while wanting another the heartbeat held
     * deadlocked with it for deadlock_timeout (ADR 0021). {@code FOR NO KEY UPDATE} is the lock
     * the UPDATE takes anyway, so the foreign-key share locks of attempt inserts do not make rows
     * look held. The last statement reads the statement's snapshot: a job in flight there that
     * this statement did not lock was held; one that finished meanwhile is dropped at the next
     * flush, where it is no longer in flight.
     */
    @Override
    public Set<JobUuid> jobHeartbeats(Statements statements, Handle h, Map<JobUuid, Instant> times) {
        List<Map.Entry<JobUuid, Instant>> rows = new ArrayList<>(times.entrySet());
        Set<JobUuid> skipped = new HashSet<>();
        for (int from = 0; from < rows.size(); from += LatestTimes.ROWS_PER_STATEMENT) {
            List<Map.Entry<JobUuid, Instant>> chunk =
                    rows.subList(from, Math.min(rows.size(), from + LatestTimes.ROWS_PER_STATEMENT));
            StringBuilder values = new StringBuilder();
            for (int i = 0; i < chunk.size(); i++)
                values.append(i == 0 ? "" : ", ")
                        .append("(:k")
                        .append(i)
                        .append(", :t")
                        .append(i)
                        .append(")");
            Sql q = statements.once(
                    h,
                    "WITH v (k, t) AS (VALUES " + values + "),"
                            + " mine AS MATERIALIZED (SELECT j.id FROM job j WHERE j.uuid IN (SELECT k FROM v) AND j.status IN (1, 2)"
                            + " FOR NO KEY UPDATE OF j SKIP LOCKED),"
                            + " written AS (UPDATE job SET last_heartbeat = v.t FROM v WHERE job.uuid = v.k AND job.id IN (SELECT id FROM mine)"
                            + " AND job.status IN (1, 2) AND (job.last_heartbeat IS NULL OR job.last_heartbeat < v.t) RETURNING job.id)"
                            + " SELECT j.uuid FROM job j WHERE j.uuid IN (SELECT k FROM v) AND j.status IN (1, 2) AND j.id NOT IN (SELECT id FROM mine)");
            for (int i = 0; i < chunk.size(); i++) {
                q.bind("k" + i, chunk.get(i).getKey().toString());
                q.bind("t" + i, Rows.micros(chunk.get(i).getValue()));
            }
            for (String uuid : q.list(rs -> rs.getString(1))) skipped.add(JobUuid.parse(uuid));
        }
        return skipped;
    }

    @Override
    public Optional<Job> claim(Statements statements, Handle h, ClaimWrite write, LongFunction<Optional<Job>> take) {
        long runnerId = write.runnerId();
        Instant now = write.now();
        ClaimFilter filter = write.filter();
        List<Long> skipped = new ArrayList<>();
        int tried = 0;
        if (!filter.prefersProjects()) {
            // The common case in one round trip: found, locked and taken (decision 0059).
            PostgresClaim.Outcome first = PostgresClaim.run(statements, h, write);
            if (first.job().isPresent()) return first.job();
            if (!first.anyPreferred()) {
                Candidate c = first.candidate();
                if (c == null) return Optional.empty(); // both walks found nothing
                if (first.locked() && c.priority() < 200 && limitStillHolds(statements, h, c.id())) {
                    Optional<Job> claimed = take.apply(c.id());
                    if (claimed.isPresent()) return claimed;
                }
                skipped.add(c.id());
                tried = 1;
            }
        }
        // A preferred label pending, a router's preferred projects, or a candidate skipped: the
        // full candidate list in claim order, a statement per step.
        for (int i = tried; i < MAX_CANDIDATES; i++) {
            String exclude = skipped.isEmpty()
                    ? ""
                    : " AND j.id NOT IN ("
                            + skipped.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ")";
            String query = candidateQuery(false, false, filter, exclude);
            Sql statement =
                    filter.addsNoSql() && skipped.isEmpty() ? statements.on(h, query) : statements.once(h, query);
            Optional<Candidate> candidate = statement
                    .bind("runner", runnerId)
                    .bind("now", Rows.micros(now))
                    .findOne(rs -> new Candidate(
                            rs.getLong("id"),
                            rs.getInt("priority"),
                            rs.getLong("organization_id"),
                            rs.getString("source_ip")));
            if (candidate.isEmpty()) return Optional.empty();
            Candidate c = candidate.get();
            boolean limited = c.priority() < 200;
            if (lockLimitKeys(statements, h, c) && (!limited || limitStillHolds(statements, h, c.id()))) {
                Optional<Job> claimed = take.apply(c.id());
                if (claimed.isPresent()) return claimed;
            }
            skipped.add(c.id());
        }
        return Optional.empty();
    }

    /**
     * The statement that finds the next candidate: the plain walk of each spec's first jobs (with
     * {@code passHeldHeads}, past rows other claims hold), or the full candidate list in claim
     * order without the {@code exclude}d ids.
     */
    static String candidateQuery(boolean firstOfEachSpec, boolean passHeldHeads, ClaimFilter filter, String exclude) {
        return (firstOfEachSpec
                        ? plainClaimByIds(filter.condition(), passHeldHeads ? " FOR UPDATE OF j SKIP LOCKED" : "")
                        : candidates("job j") + filter.condition() + exclude + filter.order(CLAIM_ORDER) + " LIMIT 1")
                + " FOR UPDATE OF j SKIP LOCKED";
    }

    record Candidate(long id, int priority, long organizationId, String sourceIp) {}

    /** Tries the candidate's organization and IP locks: exclusive where its own limit reads, shared elsewhere. */
    static boolean lockLimitKeys(Statements statements, Handle h, Candidate c) {
        boolean orgExclusive = c.priority() >= 100 && c.priority() < 200;
        boolean ipExclusive = c.priority() < 100;
        // Advisory locks are database-wide: the schema is part of the key, so Baton installations
        // (or test runs) in different schemas of one database never make each other skip jobs.
        return statements
                .on(
                        h,
                        "SELECT " + tryLock(orgExclusive) + "(:orgKind, hashtext(current_schema() || ':' || :org)) AND "
                                + tryLock(ipExclusive) + "(:ipKind, hashtext(current_schema() || ':' || :ip))")
                .bind("orgKind", ORGANIZATION_LOCK)
                .bind("org", Long.toString(c.organizationId()))
                .bind("ipKind", SOURCE_IP_LOCK)
                .bind("ip", c.sourceIp())
                .one(rs -> rs.getBoolean(1));
    }

    private static String tryLock(boolean exclusive) {
        return exclusive ? "pg_try_advisory_xact_lock" : "pg_try_advisory_xact_lock_shared";
    }

    /** The tier limit re-read in a new statement, i.e. a new snapshot taken after the advisory lock. */
    private static boolean limitStillHolds(Statements statements, Handle h, long jobId) {
        return statements
                .on(h, "SELECT 1 FROM job j WHERE j.id = :id AND j.status = 0 AND " + TIER_LIMITS)
                .bind("id", jobId)
                .exists();
    }
}

package dev.baton.store;

import static dev.baton.store.ClaimSql.CLAIM_ORDER;
import static dev.baton.store.ClaimSql.anyPendingPreferred;
import static dev.baton.store.ClaimSql.candidates;
import static dev.baton.store.ClaimSql.plainClaim;

import dev.baton.protocol.id.JobUuid;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * The embedded store's dialect: one SQLite file in WAL mode. SQLite allows one writer at a time;
 * this dialect makes that explicit with a fair in-process lock around every write transaction,
 * and the pool opens every transaction with BEGIN IMMEDIATE (the write lock at BEGIN, see
 * {@link StoreFactory}), which also covers another process on the same file. A claim's
 * read-then-update therefore runs with no other writer in between: no job is handed out twice
 * and the tier limits see every committed claim. Readers never wait (WAL).
 */
final class SqliteDialect implements SqlDialect {
    /**
     * Waiting here is cheaper and fairer than SQLite's busy handler, which sleeps and retries;
     * dispatch latency depends on a claim not sleeping behind a heartbeat batch.
     */
    private final ReentrantLock writer = new ReentrantLock(true);

    /**
     * Without statistics SQLite's planner prefers index_job_spec_id, which walks every job of a
     * spec, finished ones included; the pending index holds only pending rows, in claim order
     * (brief §3). INDEXED BY makes the choice explicit, and fails loudly if it ever stops applying.
     */
    private static final String PENDING = "job j INDEXED BY index_job_pending";

    static final String CLAIM_QUERY = candidates(PENDING) + CLAIM_ORDER + " LIMIT 1";
    /** The same job when no candidate has a preferred label ({@link ClaimSql#anyPendingPreferred}), without a sort. */
    static final String PLAIN_CLAIM_QUERY = plainClaim(PENDING, "");

    private static final String CANDIDATES = candidates(PENDING);

    /** The driver compiles on every prepare: the store keeps its constant statements prepared. */
    @Override
    public boolean keepsStatementsPrepared() {
        return true;
    }

    /** V21's triggers: SQLite's one writer makes the hot count rows cost no waiting (decision 0033). */
    @Override
    public boolean keepsPendingCounts() {
        return true;
    }

    @Override
    public int committers() {
        return 1;
    }

    @Override
    public <T> T transaction(Jdbi jdbi, HandleCallback<T, RuntimeException> work) {
        writer.lock();
        try {
            return jdbi.inTransaction(work);
        } finally {
            writer.unlock();
        }
    }

    /** One writer at a time (and one node on a SQLite file): the write transaction itself excludes other sweeps. */
    @Override
    public String sweepLock() {
        return "";
    }

    @Override
    public boolean isUniqueViolation(SQLException e) {
        String message = e.getMessage();
        return message != null
                && (message.contains("UNIQUE constraint failed") || message.contains("SQLITE_CONSTRAINT_UNIQUE"));
    }

    /** Every job row in one statement per chunk: SQLite has one writer, so no row is ever held by another. */
    @Override
    public Set<JobUuid> jobHeartbeats(Statements statements, Handle h, Map<JobUuid, Instant> times) {
        LatestTimes.write(statements, h, "job", "uuid", " AND job.status IN (1, 2)", times);
        return Set.of();
    }

    @Override
    public Optional<Job> claim(Statements statements, Handle h, ClaimWrite write, LongFunction<Optional<Job>> take) {
        long runnerId = write.runnerId();
        Instant now = write.now();
        ClaimFilter filter = write.filter();
        // A router's filter (spec ids, preferred projects) is built into the text per call.
        boolean plain = !filter.prefersProjects() && !anyPendingPreferred(statements, h, runnerId);
        Sql query = plain
                ? (filter.addsNoSql()
                        ? statements.on(h, PLAIN_CLAIM_QUERY)
                        : statements.once(h, plainClaim(PENDING, filter.condition())))
                : filter.addsNoSql()
                        ? statements.on(h, CLAIM_QUERY)
                        : statements.once(h, CANDIDATES + filter.condition() + filter.order(CLAIM_ORDER) + " LIMIT 1");
        Optional<Long> candidate =
                query.bind("runner", runnerId).bind("now", Rows.micros(now)).findOne(rs -> rs.getLong("id"));
        return candidate.isEmpty() ? Optional.empty() : take.apply(candidate.get());
    }
}

package dev.baton.server.store;

import static dev.baton.server.store.Rows.micros;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ResourceId;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;

/**
 * What the store's aggregates ({@link JdbcOrganizations}, {@link JdbcRunners}, …) share: the
 * transactions and reads of their {@link JdbcStore} (its dialect decides how each is run), the
 * store's statements and job rows, and the few row reads several aggregates make. One per
 * store, so two stores in one JVM share no state.
 */
final class StoreContext {
    /** Most transactions one commit carries, and how many may queue before writers block. */
    private static final int MAX_BATCH = 64;
    private static final int QUEUE_CAPACITY = 4096;
    /** Rows of one latest-time statement: a node's heartbeats of 10,000 runners are 10 statements, not 10,000. */
    static final int LIVENESS_ROWS_PER_STATEMENT = 1000;

    /** The store's plain JDBC statements, with the rewritten texts of its constant ones. */
    final Statements statements = new Statements();
    /** The store's job row mapping, with the configs it parsed. */
    final JobRows jobRows = new JobRows();
    /** Job heartbeats a liveness write skipped (rows held by other transactions), written with the next. */
    final SkippedHeartbeats skippedHeartbeats = new SkippedHeartbeats();

    private final JdbcStore dialect;
    private volatile GroupCommit groupCommit;
    /** Guarded by this: no committer is started after close. */
    private boolean closed;

    StoreContext(JdbcStore dialect) {
        this.dialect = dialect;
    }

    /** Whether the dialect's schema keeps pending jobs counted per spec and priority (SQLite's V21). */
    boolean keepsPendingCounts() {
        return dialect.keepsPendingCounts();
    }

    /**
     * Runs {@code work} in a write transaction and returns after its commit; concurrent writes
     * share one commit (group commit, {@link GroupCommit}). The dialect's
     * {@link JdbcStore#transaction} enters the database transaction the batch runs in.
     */
    <T> T write(HandleCallback<T, RuntimeException> work) {
        return writes().write(work);
    }

    /** Started on the first write: a committer must not call into a dialect still being constructed. */
    private GroupCommit writes() {
        GroupCommit g = groupCommit;
        if (g != null) return g;
        synchronized (this) {
            if (closed) throw new IllegalStateException("the store is closed");
            if (groupCommit == null) {
                groupCommit = new GroupCommit(dialect.pool.getPoolName() + "-commit", dialect::transaction, dialect.committers(), MAX_BATCH,
                        QUEUE_CAPACITY);
            }
            return groupCommit;
        }
    }

    /** No write is accepted after this; the batches already queued are committed. */
    void close() {
        GroupCommit g;
        synchronized (this) {
            closed = true;
            g = groupCommit;
        }
        if (g != null) g.close();
    }

    <T> T read(HandleCallback<T, RuntimeException> work) {
        return dialect.reading(() -> dialect.jdbi.withHandle(work));
    }

    /**
     * A read on a plain pooled connection, without a Jdbi handle: the hot path's reads
     * ({@link Sql}, issue 13). Autocommit, like a Jdbi handle outside a transaction.
     */
    <T> T readPlain(Sql.Work<T> work) {
        return dialect.reading(() -> {
            try (Connection c = dialect.pool.getConnection()) {
                return work.on(c);
            } catch (SQLException e) {
                throw new Sql.StatementFailed("cannot read: " + e.getMessage(), e);
            }
        });
    }

    /** Runs an insert/update and reports a unique violation as CONFLICT with {@code message}. */
    <T> T unique(String message, Supplier<T> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof SQLException sql && dialect.isUniqueViolation(sql)) {
                    throw new StoreException(StoreException.Reason.CONFLICT, message);
                }
            }
            throw e;
        }
    }

    // ---- the dialect's parts of the aggregates' work ---------------------------------------

    Optional<Job> claimIn(Handle h, long runnerId, Instant now, ClaimFilter filter, LongFunction<Optional<Job>> take) {
        return dialect.claimIn(h, runnerId, now, filter, take);
    }

    Set<JobUuid> jobHeartbeats(Handle h, Map<JobUuid, Instant> times) {
        return dialect.jobHeartbeats(h, times);
    }

    String sweepLock() {
        return dialect.sweepLock();
    }

    // ---- rows several aggregates read ----------------------------------------------------------

    /**
     * Sets {@code last_heartbeat} of each row keyed by {@code key} to its time (never backwards),
     * in one {@code UPDATE … FROM (VALUES …)} per {@value #LIVENESS_ROWS_PER_STATEMENT} rows. Both
     * dialects name a VALUES list's columns column1, column2 (SQLite has UPDATE … FROM since 3.33).
     */
    <K> int latestTimes(Handle h, String table, String key, String where, Map<K, Instant> times) {
        List<Map.Entry<K, Instant>> rows = new ArrayList<>(times.entrySet());
        int updated = 0;
        for (int from = 0; from < rows.size(); from += LIVENESS_ROWS_PER_STATEMENT) {
            List<Map.Entry<K, Instant>> chunk = rows.subList(from, Math.min(rows.size(), from + LIVENESS_ROWS_PER_STATEMENT));
            StringBuilder values = new StringBuilder();
            for (int i = 0; i < chunk.size(); i++) values.append(i == 0 ? "" : ", ").append("(:k").append(i).append(", :t").append(i).append(")");
            Sql u = statements.once(h, "UPDATE " + table + " SET last_heartbeat = v.t"
                    + " FROM (SELECT column1 AS k, column2 AS t FROM (VALUES " + values + ") AS x) AS v"
                    + " WHERE " + table + "." + key + " = v.k" + where
                    + " AND (" + table + ".last_heartbeat IS NULL OR " + table + ".last_heartbeat < v.t)");
            for (int i = 0; i < chunk.size(); i++) {
                Object k = chunk.get(i).getKey();
                if (k instanceof Long id) u.bind("k" + i, id);
                else u.bind("k" + i, k.toString());
                u.bind("t" + i, micros(chunk.get(i).getValue()));
            }
            updated += u.execute();
        }
        return updated;
    }

    Optional<Job> job(Handle h, JobUuid uuid) {
        return job(h.getConnection(), uuid);
    }

    Optional<Job> job(Connection c, JobUuid uuid) {
        return statements.on(c, "SELECT " + Rows.JOB + " FROM job WHERE uuid = :uuid").bind("uuid", uuid.toString()).findOne(jobRows);
    }

    Optional<Organization> organization(Handle h, long id) {
        return byId(h.getConnection(), "organization", Rows.ORGANIZATION, id, Rows::organization);
    }

    Optional<Project> project(Handle h, long id) {
        return byId(h.getConnection(), "project", Rows.PROJECT, id, Rows::project);
    }

    Optional<Runner> runner(Handle h, long id) {
        return byId(h.getConnection(), "runner", Rows.RUNNER, id, Rows::runner);
    }

    Optional<Spec> spec(Handle h, long id) {
        return byId(h.getConnection(), "spec", Rows.SPEC, id, Rows::spec);
    }

    <T> Optional<T> byId(Connection c, String table, String columns, long id, Sql.Reader<T> reader) {
        return statements.on(c, "SELECT " + columns + " FROM " + table + " WHERE id = :id").bind("id", id).findOne(reader);
    }

    /** UUID-shaped ids name the uuid column, anything else the slug (slugs are never UUID-shaped). */
    <T> Optional<T> byResource(Connection c, String table, String columns, ResourceId id, Sql.Reader<T> reader) {
        Optional<UUID> uuid = id.uuid();
        return statements.on(c, "SELECT " + columns + " FROM " + table + " WHERE " + (uuid.isPresent() ? "uuid" : "slug") + " = :id")
                .bind("id", uuid.map(UUID::toString).orElse(id.text())).findOne(reader);
    }

    static StoreException notFound(String what, long id) {
        return new StoreException(StoreException.Reason.NOT_FOUND, what + " " + id + " does not exist");
    }
}

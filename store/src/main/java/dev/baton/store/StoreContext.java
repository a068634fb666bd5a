package dev.baton.store;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ResourceId;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * What the store's parts ({@link JdbcOrganizations}, {@link JdbcRunners}, …) share: the pool's
 * transactions and reads (the write path with its group commit; the {@link SqlDialect} decides
 * how each transaction is entered), the store's statements and job rows, and the few row reads
 * several parts make. One per store, so two stores in one JVM share no state; it knows the pool
 * and the dialect, never the {@link JdbcStore} that holds it.
 */
final class StoreContext {
    /** Most transactions one commit carries, and how many may queue before writers block. */
    private static final int MAX_BATCH = 64;

    private static final int QUEUE_CAPACITY = 4096;

    /** The store's plain JDBC statements, with the rewritten texts of its constant ones. */
    final Statements statements = new Statements();
    /** The store's job row mapping, with the configs it parsed. */
    final JobRows jobRows = new JobRows();
    /** Job heartbeats a liveness write skipped (rows held by other transactions), written with the next. */
    final SkippedHeartbeats skippedHeartbeats = new SkippedHeartbeats();

    private final HikariDataSource pool;
    private final Jdbi jdbi;
    private final SqlDialect dialect;
    private volatile GroupCommit groupCommit;
    /** Guarded by this: no committer is started after close. */
    private boolean closed;

    StoreContext(HikariDataSource pool, Jdbi jdbi, SqlDialect dialect) {
        this.pool = pool;
        this.jdbi = jdbi;
        this.dialect = dialect;
        if (dialect.keepsStatementsPrepared()) statements.keepPrepared();
    }

    /**
     * Runs {@code work} in a write transaction and returns after its commit; concurrent writes
     * share one commit (group commit, {@link GroupCommit}). The dialect's
     * {@link SqlDialect#transaction} enters the database transaction the batch runs in.
     */
    <T> T write(HandleCallback<T, RuntimeException> work) {
        return writes().write(work);
    }

    /** Started on the first write: a store that is only read starts no committer threads. */
    private GroupCommit writes() {
        GroupCommit g = groupCommit;
        if (g != null) return g;
        synchronized (this) {
            if (closed) throw new IllegalStateException("the store is closed");
            if (groupCommit == null) {
                groupCommit = new GroupCommit(
                        pool.getPoolName() + "-commit",
                        this::transaction,
                        dialect.committers(),
                        MAX_BATCH,
                        QUEUE_CAPACITY);
            }
            return groupCommit;
        }
    }

    /** One database transaction as the dialect enters it: what each group-commit batch runs in. */
    private <T> T transaction(HandleCallback<T, RuntimeException> work) {
        return dialect.transaction(jdbi, work);
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
        return dialect.reading(() -> jdbi.withHandle(work));
    }

    /**
     * A read on a plain pooled connection, without a Jdbi handle: the hot path's reads
     * ({@link Sql}, issue 13). Autocommit, like a Jdbi handle outside a transaction.
     */
    <T> T readPlain(Sql.Work<T> work) {
        return dialect.reading(() -> {
            try (Connection c = pool.getConnection()) {
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
                if (t instanceof SQLException sql && isUniqueViolation(sql)) {
                    throw new StoreException(StoreException.Reason.CONFLICT, message);
                }
            }
            throw e;
        }
    }

    /** True when the exception is the dialect's unique-constraint violation. */
    boolean isUniqueViolation(SQLException e) {
        return dialect.isUniqueViolation(e);
    }

    // ---- rows several aggregates read ----------------------------------------------------------

    Optional<Job> job(Handle h, JobUuid uuid) {
        return job(h.getConnection(), uuid);
    }

    Optional<Job> job(Connection c, JobUuid uuid) {
        return statements
                .on(c, "SELECT " + Rows.JOB + " FROM job WHERE uuid = :uuid")
                .bind("uuid", uuid.toString())
                .findOne(jobRows);
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
        return statements
                .on(c, "SELECT " + columns + " FROM " + table + " WHERE id = :id")
                .bind("id", id)
                .findOne(reader);
    }

    /** UUID-shaped ids name the uuid column, anything else the slug (slugs are never UUID-shaped). */
    <T> Optional<T> byResource(Connection c, String table, String columns, ResourceId id, Sql.Reader<T> reader) {
        Optional<UUID> uuid = id.uuid();
        return statements
                .on(
                        c,
                        "SELECT " + columns + " FROM " + table + " WHERE " + (uuid.isPresent() ? "uuid" : "slug")
                                + " = :id")
                .bind("id", uuid.map(UUID::toString).orElse(id.text()))
                .findOne(reader);
    }

    static StoreException notFound(String what, long id) {
        return new StoreException(StoreException.Reason.NOT_FOUND, what + " " + id + " does not exist");
    }
}

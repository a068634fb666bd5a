package dev.baton.store;

import static dev.baton.store.Rows.micros;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * How an OJS job is kept in {@code ojs_job}: the columns a read selects, its row mapper, its
 * insert and its compare-and-set update. A push, a unique replace and a workflow's step all insert
 * jobs, so one statement of each serves them all, on the caller's handle and transaction.
 */
final class OjsJobRows {
    private OjsJobRows() {}

    /** What every read of a job selects, for {@link #read}. */
    static final String COLUMNS = "seq, id, queue, state, priority, run_at, deadline, worker_id, version, document";

    /** The job of the current row of a query that selected {@link #COLUMNS}. */
    static OjsRow read(ResultSet rs, StatementContext ctx) throws SQLException {
        return new OjsRow(
                rs.getLong("seq"),
                rs.getString("id"),
                rs.getString("queue"),
                rs.getString("state"),
                rs.getInt("priority"),
                Rows.instant(rs, "run_at"),
                Rows.instant(rs, "deadline"),
                rs.getString("worker_id"),
                rs.getLong("version"),
                rs.getString("document"));
    }

    /** Inserts the job at version 0; {@code uniqueKey} (null: none) is the key its unique policy locks. */
    static void insert(Handle h, OjsRow row, String uniqueKey, Instant now) {
        h.createUpdate(
                        "INSERT INTO ojs_job (id, queue, state, priority, run_at, deadline, worker_id, version, document, created, modified, unique_key)"
                                + " VALUES (:id, :queue, :state, :priority, :runAt, :deadline, :worker, 0, :document, :now, :now, :unique)")
                .bind("id", row.id())
                .bind("queue", row.queue())
                .bind("state", row.state())
                .bind("priority", row.priority())
                .bind("runAt", micros(row.runAt()))
                .bind("deadline", micros(row.deadline()))
                .bind("worker", row.workerId())
                .bind("document", row.document())
                .bind("now", micros(now))
                .bind("unique", uniqueKey)
                .execute();
    }

    /** Compare-and-set: writes {@code next} if the stored version is still {@code next.version()}, which then grows by one. */
    static boolean update(Handle h, OjsRow next, Instant now) {
        return h.createUpdate(
                                "UPDATE ojs_job SET queue = :queue, state = :state, priority = :priority, run_at = :runAt,"
                                        + " deadline = :deadline, worker_id = :worker, document = :document, version = version + 1, modified = :now"
                                        + " WHERE id = :id AND version = :version")
                        .bind("id", next.id())
                        .bind("queue", next.queue())
                        .bind("state", next.state())
                        .bind("priority", next.priority())
                        .bind("runAt", micros(next.runAt()))
                        .bind("deadline", micros(next.deadline()))
                        .bind("worker", next.workerId())
                        .bind("document", next.document())
                        .bind("version", next.version())
                        .bind("now", micros(now))
                        .execute()
                == 1;
    }
}

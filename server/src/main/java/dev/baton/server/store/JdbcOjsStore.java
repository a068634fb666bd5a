package dev.baton.server.store;

import static dev.baton.server.store.Rows.micros;

import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jdbi.v3.core.statement.Query;

/** {@link OjsStore} in SQL both dialects accept, on its {@link JdbcStore}'s transactions. */
final class JdbcOjsStore implements OjsStore {
    private final JdbcStore store;

    JdbcOjsStore(JdbcStore store) {
        this.store = store;
    }


    private static final String OJS_COLUMNS = "seq, id, queue, state, priority, run_at, deadline, worker_id, version, document";

    private static OjsRow ojsRow(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx) throws SQLException {
        return new OjsRow(rs.getLong("seq"), rs.getString("id"), rs.getString("queue"), rs.getString("state"), rs.getInt("priority"),
                Rows.instant(rs, "run_at"), Rows.instant(rs, "deadline"), rs.getString("worker_id"), rs.getLong("version"),
                rs.getString("document"));
    }

    @Override
    public boolean insertJob(OjsRow row, Instant now) {
        try {
            return insertOjsRow(row, now);
        } catch (RuntimeException e) {
            // Two nodes pushing one client-chosen id at once: the loser's insert violates the key.
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof SQLException sql && store.isUniqueViolation(sql)) return false;
            }
            throw e;
        }
    }

    private boolean insertOjsRow(OjsRow row, Instant now) {
        return store.write(h -> {
            if (h.createQuery("SELECT 1 FROM ojs_job WHERE id = :id").bind("id", row.id()).mapTo(Integer.class).findOne().isPresent()) {
                return false;
            }
            h.createUpdate("INSERT INTO ojs_job (id, queue, state, priority, run_at, deadline, worker_id, version, document, created, modified)"
                            + " VALUES (:id, :queue, :state, :priority, :runAt, :deadline, :worker, 0, :document, :now, :now)")
                    .bind("id", row.id()).bind("queue", row.queue()).bind("state", row.state()).bind("priority", row.priority())
                    .bind("runAt", micros(row.runAt())).bind("deadline", micros(row.deadline())).bind("worker", row.workerId())
                    .bind("document", row.document()).bind("now", micros(now))
                    .execute();
            return true;
        });
    }

    @Override
    public Optional<OjsRow> findJob(String id) {
        return store.read(h -> h.createQuery("SELECT " + OJS_COLUMNS + " FROM ojs_job WHERE id = :id").bind("id", id).map(JdbcOjsStore::ojsRow).findOne());
    }

    @Override
    public boolean updateJob(OjsRow next, Instant now) {
        return store.write(h -> h.createUpdate("UPDATE ojs_job SET queue = :queue, state = :state, priority = :priority, run_at = :runAt,"
                        + " deadline = :deadline, worker_id = :worker, document = :document, version = version + 1, modified = :now"
                        + " WHERE id = :id AND version = :version")
                .bind("id", next.id()).bind("queue", next.queue()).bind("state", next.state()).bind("priority", next.priority())
                .bind("runAt", micros(next.runAt())).bind("deadline", micros(next.deadline())).bind("worker", next.workerId())
                .bind("document", next.document()).bind("version", next.version()).bind("now", micros(now))
                .execute() == 1);
    }

    @Override
    public List<OjsRow> jobs(String queue, String state, int limit) {
        return store.read(h -> h.createQuery("SELECT " + OJS_COLUMNS + " FROM ojs_job WHERE queue = :queue AND state = :state"
                        + " ORDER BY priority DESC, seq ASC LIMIT :limit")
                .bind("queue", queue).bind("state", state).bind("limit", limit).map(JdbcOjsStore::ojsRow).list());
    }

    @Override
    public List<OjsRow> jobsInStates(Collection<String> states, int limit) {
        if (states.isEmpty()) return List.of();
        return store.read(h -> h.createQuery("SELECT " + OJS_COLUMNS + " FROM ojs_job WHERE state IN (<states>) ORDER BY seq ASC LIMIT :limit")
                .bindList("states", List.copyOf(states)).bind("limit", limit).map(JdbcOjsStore::ojsRow).list());
    }

    @Override
    public List<OjsRow> dueJobs(Instant now, int limit) {
        return store.read(h -> h.createQuery("SELECT " + OJS_COLUMNS + " FROM ojs_job WHERE (run_at IS NOT NULL AND run_at <= :now)"
                        + " OR (deadline IS NOT NULL AND deadline <= :now) ORDER BY seq ASC LIMIT :limit")
                .bind("now", micros(now)).bind("limit", limit).map(JdbcOjsStore::ojsRow).list());
    }

    @Override
    public boolean deleteJob(String id, long version) {
        return store.write(h -> h.createUpdate("DELETE FROM ojs_job WHERE id = :id AND version = :version")
                .bind("id", id).bind("version", version).execute() == 1);
    }

    @Override
    public Map<String, Map<String, Long>> counts() {
        return store.read(h -> {
            Map<String, Map<String, Long>> counts = new TreeMap<>();
            h.createQuery("SELECT queue, state, COUNT(*) AS n FROM ojs_job GROUP BY queue, state")
                    .map((rs, ctx) -> Map.entry(rs.getString("queue"), Map.entry(rs.getString("state"), rs.getLong("n"))))
                    .forEach(e -> counts.computeIfAbsent(e.getKey(), q -> new TreeMap<>()).put(e.getValue().getKey(), e.getValue().getValue()));
            h.createQuery("SELECT name FROM ojs_queue").mapTo(String.class)
                    .forEach(q -> counts.computeIfAbsent(q, x -> new TreeMap<>()));
            return counts;
        });
    }

    @Override
    public void appendEvent(String type, String queue, String jobId, String data, Instant now) {
        store.write(h -> h.createUpdate("INSERT INTO ojs_event (type, queue, job_id, data, created) VALUES (:type, :queue, :job, :data, :now)")
                .bind("type", type).bind("queue", queue).bind("job", jobId).bind("data", data).bind("now", micros(now))
                .execute());
    }

    @Override
    public List<OjsEvent> events(Collection<String> types, Collection<String> queues, int limit) {
        return store.read(h -> {
            StringBuilder sql = new StringBuilder("SELECT seq, type, queue, job_id, data, created FROM ojs_event WHERE 1 = 1");
            if (!types.isEmpty()) sql.append(" AND type IN (<types>)");
            if (!queues.isEmpty()) sql.append(" AND queue IN (<queues>)");
            sql.append(" ORDER BY seq DESC LIMIT :limit");
            Query q = h.createQuery(sql.toString()).bind("limit", limit);
            if (!types.isEmpty()) q.bindList("types", List.copyOf(types));
            if (!queues.isEmpty()) q.bindList("queues", List.copyOf(queues));
            return q.map((rs, ctx) -> new OjsEvent(rs.getLong("seq"), rs.getString("type"), rs.getString("queue"), rs.getString("job_id"),
                    rs.getString("data"), Rows.instant(rs, "created"))).list();
        });
    }

    @Override
    public void setQueuePaused(String queue, boolean paused) {
        store.write(h -> h.createUpdate("INSERT INTO ojs_queue (name, paused) VALUES (:name, :paused)"
                        + " ON CONFLICT (name) DO UPDATE SET paused = excluded.paused")
                .bind("name", queue).bind("paused", paused ? 1 : 0).execute());
    }

    @Override
    public Set<String> pausedQueues() {
        return store.read(h -> Set.copyOf(h.createQuery("SELECT name FROM ojs_queue WHERE paused = 1").mapTo(String.class).list()));
    }

    private static OjsCron ojsCron(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx) throws SQLException {
        return new OjsCron(rs.getString("name"), Rows.instant(rs, "next_run"), rs.getLong("version"), rs.getString("document"));
    }

    @Override
    public void putCron(OjsCron cron, Instant now) {
        store.write(h -> h.createUpdate("INSERT INTO ojs_cron (name, next_run, version, document, created) VALUES (:name, :next, 0, :document, :now)"
                        + " ON CONFLICT (name) DO UPDATE SET next_run = excluded.next_run, version = 0, document = excluded.document")
                .bind("name", cron.name()).bind("next", micros(cron.nextRun())).bind("document", cron.document()).bind("now", micros(now))
                .execute());
    }

    @Override
    public List<OjsCron> crons() {
        return store.read(h -> h.createQuery("SELECT name, next_run, version, document FROM ojs_cron ORDER BY name").map(JdbcOjsStore::ojsCron).list());
    }

    @Override
    public boolean deleteCron(String name) {
        return store.write(h -> h.createUpdate("DELETE FROM ojs_cron WHERE name = :name").bind("name", name).execute() == 1);
    }

    @Override
    public boolean updateCron(OjsCron next) {
        return store.write(h -> h.createUpdate("UPDATE ojs_cron SET next_run = :next, document = :document, version = version + 1"
                        + " WHERE name = :name AND version = :version")
                .bind("name", next.name()).bind("next", micros(next.nextRun())).bind("document", next.document())
                .bind("version", next.version()).execute() == 1);
    }
}

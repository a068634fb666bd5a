package dev.baton.store;

import static dev.baton.store.Rows.micros;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.StatementContext;

/** {@link OjsRecords} in SQL both dialects accept, on the store's transactions ({@link StoreContext}). */
final class JdbcOjsRecords implements OjsRecords {
    private final StoreContext context;

    JdbcOjsRecords(StoreContext context) {
        this.context = context;
    }

    @Override
    public boolean insertJob(OjsRow row, RateLimit rate, Instant now) {
        try {
            context.write(h -> {
                OjsJobRows.insert(h, row, null, now);
                if (rate != null) setRate(h, row.queue(), rate.max(), rate.window());
                return null;
            });
            return true;
        } catch (RuntimeException e) {
            // The primary key decides: an existing id (two nodes pushing one client-chosen id at
            // once included) makes the insert violate it, and nothing is written.
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof SQLException sql && context.isUniqueViolation(sql)) return false;
            }
            throw e;
        }
    }

    @Override
    public Optional<OjsRow> findJob(String id) {
        return context.read(h -> h.createQuery("SELECT " + OjsJobRows.COLUMNS + " FROM ojs_job WHERE id = :id")
                .bind("id", id)
                .map(OjsJobRows::read)
                .findOne());
    }

    @Override
    public boolean updateJob(OjsRow next, Instant now) {
        return context.write(h -> OjsJobRows.update(h, next, now));
    }

    @Override
    public List<OjsRow> jobs(String queue, String state, int limit) {
        return context.read(h -> h.createQuery(
                        "SELECT " + OjsJobRows.COLUMNS + " FROM ojs_job WHERE queue = :queue AND state = :state"
                                + " ORDER BY priority DESC, seq ASC LIMIT :limit")
                .bind("queue", queue)
                .bind("state", state)
                .bind("limit", limit)
                .map(OjsJobRows::read)
                .list());
    }

    @Override
    public List<OjsRow> jobsInStates(Collection<String> states, int limit) {
        if (states.isEmpty()) return List.of();
        return context.read(h -> h.createQuery("SELECT " + OjsJobRows.COLUMNS
                        + " FROM ojs_job WHERE state IN (<states>) ORDER BY seq ASC LIMIT :limit")
                .bindList("states", List.copyOf(states))
                .bind("limit", limit)
                .map(OjsJobRows::read)
                .list());
    }

    @Override
    public List<OjsRow> dueJobs(Instant now, int limit) {
        return context.read(h -> h.createQuery(
                        "SELECT " + OjsJobRows.COLUMNS + " FROM ojs_job WHERE (run_at IS NOT NULL AND run_at <= :now)"
                                + " OR (deadline IS NOT NULL AND deadline <= :now) ORDER BY seq ASC LIMIT :limit")
                .bind("now", micros(now))
                .bind("limit", limit)
                .map(OjsJobRows::read)
                .list());
    }

    @Override
    public boolean deleteJob(String id, long version) {
        return context.write(h -> h.createUpdate("DELETE FROM ojs_job WHERE id = :id AND version = :version")
                        .bind("id", id)
                        .bind("version", version)
                        .execute()
                == 1);
    }

    @Override
    public Map<String, Map<String, Long>> counts() {
        return context.read(h -> {
            Map<String, Map<String, Long>> counts = new TreeMap<>();
            h.createQuery("SELECT queue, state, COUNT(*) AS n FROM ojs_job GROUP BY queue, state")
                    .map((rs, ctx) ->
                            Map.entry(rs.getString("queue"), Map.entry(rs.getString("state"), rs.getLong("n"))))
                    .forEach(e -> counts.computeIfAbsent(e.getKey(), q -> new TreeMap<>())
                            .put(e.getValue().getKey(), e.getValue().getValue()));
            h.createQuery("SELECT name FROM ojs_queue")
                    .mapTo(String.class)
                    .forEach(q -> counts.computeIfAbsent(q, x -> new TreeMap<>()));
            return counts;
        });
    }

    @Override
    public void appendEvent(String type, String queue, String jobId, String data, Instant now) {
        context.write(h -> h.createUpdate(
                        "INSERT INTO ojs_event (type, queue, job_id, data, created) VALUES (:type, :queue, :job, :data, :now)")
                .bind("type", type)
                .bind("queue", queue)
                .bind("job", jobId)
                .bind("data", data)
                .bind("now", micros(now))
                .execute());
    }

    @Override
    public List<OjsEvent> events(Collection<String> types, Collection<String> queues, int limit) {
        return context.read(h -> {
            StringBuilder sql =
                    new StringBuilder("SELECT seq, type, queue, job_id, data, created FROM ojs_event WHERE 1 = 1");
            if (!types.isEmpty()) sql.append(" AND type IN (<types>)");
            if (!queues.isEmpty()) sql.append(" AND queue IN (<queues>)");
            sql.append(" ORDER BY seq DESC LIMIT :limit");
            Query q = h.createQuery(sql.toString()).bind("limit", limit);
            if (!types.isEmpty()) q.bindList("types", List.copyOf(types));
            if (!queues.isEmpty()) q.bindList("queues", List.copyOf(queues));
            return q.map((rs, ctx) -> new OjsEvent(
                            rs.getLong("seq"),
                            rs.getString("type"),
                            rs.getString("queue"),
                            rs.getString("job_id"),
                            rs.getString("data"),
                            Rows.instant(rs, "created")))
                    .list();
        });
    }

    @Override
    public void setQueuePaused(String queue, boolean paused) {
        context.write(h -> h.createUpdate("INSERT INTO ojs_queue (name, paused) VALUES (:name, :paused)"
                        + " ON CONFLICT (name) DO UPDATE SET paused = excluded.paused")
                .bind("name", queue)
                .bind("paused", paused ? 1 : 0)
                .execute());
    }

    @Override
    public Set<String> pausedQueues() {
        return context.read(h -> Set.copyOf(h.createQuery("SELECT name FROM ojs_queue WHERE paused = 1")
                .mapTo(String.class)
                .list()));
    }

    private static OjsCron ojsCron(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
            throws SQLException {
        return new OjsCron(
                rs.getString("name"), Rows.instant(rs, "next_run"), rs.getLong("version"), rs.getString("document"));
    }

    @Override
    public void putCron(OjsCron cron, Instant now) {
        context.write(h -> h.createUpdate(
                        "INSERT INTO ojs_cron (name, next_run, version, document, created) VALUES (:name, :next, 0, :document, :now)"
                                + " ON CONFLICT (name) DO UPDATE SET next_run = excluded.next_run, version = 0, document = excluded.document")
                .bind("name", cron.name())
                .bind("next", micros(cron.nextRun()))
                .bind("document", cron.document())
                .bind("now", micros(now))
                .execute());
    }

    @Override
    public List<OjsCron> crons() {
        return context.read(h -> h.createQuery("SELECT name, next_run, version, document FROM ojs_cron ORDER BY name")
                .map(JdbcOjsRecords::ojsCron)
                .list());
    }

    @Override
    public boolean deleteCron(String name) {
        return context.write(h -> h.createUpdate("DELETE FROM ojs_cron WHERE name = :name")
                        .bind("name", name)
                        .execute()
                == 1);
    }

    @Override
    public boolean updateCron(OjsCron next) {
        return context.write(
                h -> h.createUpdate("UPDATE ojs_cron SET next_run = :next, document = :document, version = version + 1"
                                        + " WHERE name = :name AND version = :version")
                                .bind("name", next.name())
                                .bind("next", micros(next.nextRun()))
                                .bind("document", next.document())
                                .bind("version", next.version())
                                .execute()
                        == 1);
    }

    // ---- levels 3 and 4, graceful shutdown ---------------------------------------------------

    @Override
    public List<OjsRow> jobsById(Collection<String> ids) {
        if (ids.isEmpty()) return List.of();
        return context.read(h -> h.createQuery("SELECT " + OjsJobRows.COLUMNS + " FROM ojs_job WHERE id IN (<ids>)")
                .bindList("ids", List.copyOf(ids))
                .map(OjsJobRows::read)
                .list());
    }

    @Override
    public Optional<OjsRow> insertUnique(OjsRow row, OjsUnique unique, RateLimit rate, Instant now) {
        // An existing id violates the primary key: the transaction (a replace's cancel included) rolls back.
        return context.unique(
                "a job with id " + row.id() + " exists",
                () -> context.write(h -> {
                    // The key's row: on PostgreSQL the upsert holds its row lock until this transaction
                    // commits, so a concurrent push of the same key (any node) waits here, and its next
                    // statement (READ COMMITTED: a new snapshot) sees this one's job. SQLite has one writer.
                    h.createUpdate(
                                    "INSERT INTO ojs_unique (key, touched) VALUES (:key, :now) ON CONFLICT (key) DO UPDATE SET touched = excluded.touched")
                            .bind("key", unique.key())
                            .bind("now", micros(now))
                            .execute();
                    Optional<OjsRow> conflict = conflict(h, unique);
                    if (conflict.isPresent()) {
                        if (unique.replace() == null) return conflict;
                        if (!OjsJobRows.update(h, unique.replace().apply(conflict.get()), now)) return conflict;
                    }
                    OjsJobRows.insert(h, row, unique.key(), now);
                    if (rate != null) setRate(h, row.queue(), rate.max(), rate.window());
                    return Optional.<OjsRow>empty();
                }));
    }

    @Override
    public int pruneUniqueKeys(Instant before) {
        return context.write(h -> h.createUpdate("DELETE FROM ojs_unique WHERE touched < :before")
                .bind("before", micros(before))
                .execute());
    }

    @Override
    public Optional<OjsRow> uniqueConflict(OjsUnique unique) {
        return context.read(h -> conflict(h, unique));
    }

    private static Optional<OjsRow> conflict(Handle h, OjsUnique unique) {
        if (unique.states().isEmpty()) return Optional.empty();
        Query q = h.createQuery("SELECT " + OjsJobRows.COLUMNS
                        + " FROM ojs_job WHERE unique_key = :key AND state IN (<states>)"
                        + (unique.since() != null ? " AND created >= :since" : "") + " ORDER BY seq ASC LIMIT 1")
                .bind("key", unique.key())
                .bindList("states", List.copyOf(unique.states()));
        if (unique.since() != null) q.bind("since", micros(unique.since()));
        return q.map(OjsJobRows::read).findOne();
    }

    private static final String WORKFLOW_COLUMNS = "id, state, version, document";

    private static OjsWorkflow workflow(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
            throws SQLException {
        return new OjsWorkflow(
                rs.getString("id"), rs.getString("state"), rs.getLong("version"), rs.getString("document"));
    }

    @Override
    public void insertWorkflow(OjsWorkflow workflow, List<OjsRow> jobs, Instant now) {
        context.unique(
                "a workflow with id " + workflow.id() + " exists",
                () -> context.write(h -> {
                    h.createUpdate(
                                    "INSERT INTO ojs_workflow (id, state, version, document, created, modified) VALUES (:id, :state, 0, :document, :now, :now)")
                            .bind("id", workflow.id())
                            .bind("state", workflow.state())
                            .bind("document", workflow.document())
                            .bind("now", micros(now))
                            .execute();
                    for (OjsRow job : jobs) OjsJobRows.insert(h, job, null, now);
                    return null;
                }));
    }

    @Override
    public Optional<OjsWorkflow> findWorkflow(String id) {
        return context.read(h -> h.createQuery("SELECT " + WORKFLOW_COLUMNS + " FROM ojs_workflow WHERE id = :id")
                .bind("id", id)
                .map(JdbcOjsRecords::workflow)
                .findOne());
    }

    @Override
    public boolean advanceWorkflow(OjsWorkflow next, List<OjsRow> newJobs, Instant now) {
        return context.write(h -> {
            int changed = h.createUpdate(
                            "UPDATE ojs_workflow SET state = :state, document = :document, version = version + 1, modified = :now"
                                    + " WHERE id = :id AND version = :version")
                    .bind("id", next.id())
                    .bind("state", next.state())
                    .bind("document", next.document())
                    .bind("version", next.version())
                    .bind("now", micros(now))
                    .execute();
            if (changed != 1) return false;
            for (OjsRow job : newJobs) OjsJobRows.insert(h, job, null, now);
            return true;
        });
    }

    @Override
    public List<OjsWorkflow> workflowsInState(String state, String afterId, int limit) {
        return context.read(h -> h.createQuery("SELECT " + WORKFLOW_COLUMNS
                        + " FROM ojs_workflow WHERE state = :state AND id > :after" + " ORDER BY id LIMIT :limit")
                .bind("state", state)
                .bind("after", afterId == null ? "" : afterId)
                .bind("limit", limit)
                .map(JdbcOjsRecords::workflow)
                .list());
    }

    @Override
    public void setQueueRateLimit(String queue, Integer max, java.time.Duration window) {
        context.write(h -> setRate(h, queue, max, window));
    }

    private static int setRate(Handle h, String queue, Integer max, java.time.Duration window) {
        return h.createUpdate(
                        "INSERT INTO ojs_queue (name, paused, rate_max, rate_window_ms) VALUES (:name, 0, :max, :window)"
                                + " ON CONFLICT (name) DO UPDATE SET rate_max = excluded.rate_max, rate_window_ms = excluded.rate_window_ms")
                .bind("name", queue)
                .bind("max", max)
                .bind("window", max == null ? null : window.toMillis())
                .execute();
    }

    @Override
    public Set<String> rateLimitedQueues() {
        return context.read(h -> Set.copyOf(h.createQuery("SELECT name FROM ojs_queue WHERE rate_max IS NOT NULL")
                .mapTo(String.class)
                .list()));
    }

    @Override
    public boolean takeRateSlot(String queue, Instant now) {
        return context.write(h -> {
            // Two conditional updates, each atomic on its row (PostgreSQL re-checks the WHERE of a
            // row another transaction changed meanwhile): open a new window, or count into this one.
            int opened = h.createUpdate(
                            "UPDATE ojs_queue SET window_start = :now, window_count = 1 WHERE name = :name AND rate_max >= 1"
                                    + " AND (window_start IS NULL OR window_start <= :now - rate_window_ms * 1000 OR window_start > :now)")
                    .bind("name", queue)
                    .bind("now", micros(now))
                    .execute();
            if (opened == 1) return true;
            if (h.createUpdate(
                                    "UPDATE ojs_queue SET window_count = window_count + 1 WHERE name = :name AND window_count < rate_max"
                                            + " AND window_start > :now - rate_window_ms * 1000")
                            .bind("name", queue)
                            .bind("now", micros(now))
                            .execute()
                    == 1) {
                return true;
            }
            // No slot: the limit is read only now, to tell a spent window from a queue without a
            // limit (the caller read the limits once for its whole fetch and asks only for limited queues).
            return h.createQuery("SELECT 1 FROM ojs_queue WHERE name = :name AND rate_max IS NOT NULL")
                    .bind("name", queue)
                    .mapTo(Integer.class)
                    .findOne()
                    .isEmpty();
        });
    }

    @Override
    public void putWorker(OjsWorker worker) {
        context.write(h -> h.createUpdate(
                        "INSERT INTO ojs_worker (id, state, last_beat, document) VALUES (:id, :state, :beat, :document)"
                                + " ON CONFLICT (id) DO UPDATE SET state = excluded.state, last_beat = excluded.last_beat, document = excluded.document")
                .bind("id", worker.id())
                .bind("state", worker.state())
                .bind("beat", micros(worker.lastBeat()))
                .bind("document", worker.document())
                .execute());
    }

    @Override
    public Optional<OjsWorker> findWorker(String id) {
        return context.read(h -> h.createQuery("SELECT " + WORKER_COLUMNS + " FROM ojs_worker WHERE id = :id")
                .bind("id", id)
                .map(JdbcOjsRecords::worker)
                .findOne());
    }

    private static final String WORKER_COLUMNS = "id, state, last_beat, document, directive, heartbeat_timeout_ms";

    private static OjsWorker worker(ResultSet rs, StatementContext ctx) throws SQLException {
        long timeout = rs.getLong("heartbeat_timeout_ms");
        Duration heartbeatTimeout = rs.wasNull() ? null : Duration.ofMillis(timeout);
        return new OjsWorker(
                rs.getString("id"),
                rs.getString("state"),
                Rows.instant(rs, "last_beat"),
                rs.getString("document"),
                rs.getString("directive"),
                heartbeatTimeout);
    }

    @Override
    public void registerWorker(OjsWorker worker) {
        context.write(h -> h.createUpdate("INSERT INTO ojs_worker (" + WORKER_COLUMNS + ")"
                        + " VALUES (:id, :state, :beat, :document, NULL, :timeout)"
                        + " ON CONFLICT (id) DO UPDATE SET state = excluded.state, last_beat = excluded.last_beat,"
                        + " document = excluded.document, directive = NULL,"
                        + " heartbeat_timeout_ms = excluded.heartbeat_timeout_ms")
                .bind("id", worker.id())
                .bind("state", worker.state())
                .bind("beat", micros(worker.lastBeat()))
                .bind("document", worker.document())
                .bind("timeout", worker.heartbeatTimeout().toMillis())
                .execute());
    }

    @Override
    public List<OjsWorker> workers() {
        return context.read(h -> h.createQuery("SELECT " + WORKER_COLUMNS + " FROM ojs_worker ORDER BY id")
                .map(JdbcOjsRecords::worker)
                .list());
    }

    @Override
    public boolean directWorker(String id, String directive) {
        return context.write(h -> h.createUpdate("UPDATE ojs_worker SET directive = :directive"
                                + " WHERE id = :id AND state <> 'terminated'")
                        .bind("id", id)
                        .bind("directive", directive)
                        .execute())
                == 1;
    }

    @Override
    public List<OjsWorker> silentWorkers(Instant now) {
        return context.read(h -> h.createQuery("SELECT " + WORKER_COLUMNS + " FROM ojs_worker"
                        + " WHERE heartbeat_timeout_ms IS NOT NULL AND state <> 'terminated'"
                        + " AND last_beat + heartbeat_timeout_ms * 1000 <= :now")
                .bind("now", micros(now))
                .map(JdbcOjsRecords::worker)
                .list());
    }

    @Override
    public boolean terminateWorker(OjsWorker seen, String document) {
        return context.write(h -> h.createUpdate("UPDATE ojs_worker"
                                + " SET state = 'terminated', directive = NULL, document = :document"
                                + " WHERE id = :id AND state = :state AND last_beat = :beat")
                        .bind("id", seen.id())
                        .bind("state", seen.state())
                        .bind("beat", micros(seen.lastBeat()))
                        .bind("document", document)
                        .execute())
                == 1;
    }

    @Override
    public List<OjsRow> jobsOfWorker(String workerId, String state) {
        return context.read(h -> h.createQuery("SELECT " + OjsJobRows.COLUMNS + " FROM ojs_job"
                        + " WHERE worker_id = :worker AND state = :state ORDER BY seq")
                .bind("worker", workerId)
                .bind("state", state)
                .map(OjsJobRows::read)
                .list());
    }
}

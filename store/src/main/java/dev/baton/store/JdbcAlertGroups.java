package dev.baton.store;

import static dev.baton.store.AlertRows.ALERT;
import static dev.baton.store.AlertRows.ALERT_MAPPER;
import static dev.baton.store.Rows.instant;
import static dev.baton.store.Rows.micros;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.Update;

/** {@link AlertGroups} in SQL both dialects accept, on the store's transactions ({@link StoreContext}). */
final class JdbcAlertGroups implements AlertGroups {
    private final StoreContext context;

    JdbcAlertGroups(StoreContext context) {
        this.context = context;
    }

    private static final String GROUP =
            "SELECT g.id, g.uuid, g.project_id, r.uuid AS report_uuid, g.branch, g.testbed, g.hash, g.previous_hash,"
                    + " g.created FROM alert_group g JOIN report r ON r.id = g.report_id";

    private static final RowMapper<AlertGroup> GROUP_MAPPER = (rs, ctx) -> new AlertGroup(
            rs.getLong("id"),
            rs.getString("uuid"),
            rs.getLong("project_id"),
            rs.getString("report_uuid"),
            rs.getString("branch"),
            rs.getString("testbed"),
            rs.getString("hash"),
            rs.getString("previous_hash"),
            instant(rs, "created"),
            List.of());

    @Override
    public Optional<Alert> triageAlert(long projectId, String uuid, Triage triage) {
        return context.write(h -> {
            Update u = h.createUpdate(TRIAGE + " WHERE project_id = :p AND uuid = :uuid")
                    .bind("p", projectId)
                    .bind("uuid", uuid);
            if (bindTriage(u, triage).execute() == 0) return Optional.<Alert>empty();
            return h.createQuery(ALERT + " WHERE a.project_id = :p AND a.uuid = :uuid")
                    .bind("p", projectId)
                    .bind("uuid", uuid)
                    .map(ALERT_MAPPER)
                    .findOne();
        });
    }

    @Override
    public List<AlertGroup> list(AlertGroupFilter f) {
        return context.read(h -> {
            StringBuilder sql = new StringBuilder(GROUP + " WHERE g.project_id = :p");
            if (f.triage() != null)
                sql.append(" AND EXISTS (SELECT 1 FROM alert a WHERE a.group_id = g.id AND a.triage = :triage)");
            if (f.branch() != null) sql.append(" AND g.branch = :branch");
            if (f.reportUuid() != null) sql.append(" AND r.uuid = :report");
            if (f.beforeId() != null) sql.append(" AND g.id < :before");
            sql.append(" ORDER BY g.id DESC LIMIT :limit");
            Query q = h.createQuery(sql.toString()).bind("p", f.projectId()).bind("limit", f.limit());
            if (f.triage() != null) q.bind("triage", f.triage());
            if (f.branch() != null) q.bind("branch", f.branch());
            if (f.reportUuid() != null) q.bind("report", f.reportUuid());
            if (f.beforeId() != null) q.bind("before", f.beforeId());
            return withAlerts(h, q.map(GROUP_MAPPER).list());
        });
    }

    @Override
    public Optional<AlertGroup> find(long projectId, String uuid) {
        return context.read(h -> findGroup(h, projectId, uuid));
    }

    @Override
    public Optional<AlertGroup> triage(long projectId, String uuid, Triage triage) {
        return context.write(h -> {
            Update u = h.createUpdate(TRIAGE
                            + " WHERE group_id = (SELECT id FROM alert_group WHERE project_id = :p AND uuid = :uuid)")
                    .bind("p", projectId)
                    .bind("uuid", uuid);
            bindTriage(u, triage).execute();
            return findGroup(h, projectId, uuid);
        });
    }

    private static final String TRIAGE =
            "UPDATE alert SET triage = :state, triage_note = :note, triage_commit = :commit,"
                    + " triaged_by = :by, triaged_at = :at";

    private static Update bindTriage(Update u, Triage t) {
        return u.bind("state", t.state())
                .bind("note", t.note())
                .bind("commit", t.commit())
                .bind("by", t.by())
                .bind("at", t.at() == null ? null : micros(t.at()));
    }

    private static Optional<AlertGroup> findGroup(Handle h, long projectId, String uuid) {
        List<AlertGroup> found = h.createQuery(GROUP + " WHERE g.project_id = :p AND g.uuid = :uuid")
                .bind("p", projectId)
                .bind("uuid", uuid)
                .map(GROUP_MAPPER)
                .list();
        return withAlerts(h, found).stream().findFirst();
    }

    /** The groups with their alerts, read in one query. */
    private static List<AlertGroup> withAlerts(Handle h, List<AlertGroup> groups) {
        if (groups.isEmpty()) return groups;
        Map<String, List<Alert>> byGroup = new LinkedHashMap<>();
        for (Alert a : h.createQuery(ALERT + " WHERE a.group_id IN (<ids>) ORDER BY a.id")
                .bindList("ids", groups.stream().map(AlertGroup::id).toList())
                .map(ALERT_MAPPER)
                .list()) {
            byGroup.computeIfAbsent(a.groupUuid(), k -> new ArrayList<>()).add(a);
        }
        return groups.stream()
                .map(g -> new AlertGroup(
                        g.id(),
                        g.uuid(),
                        g.projectId(),
                        g.reportUuid(),
                        g.branch(),
                        g.testbed(),
                        g.hash(),
                        g.previousHash(),
                        g.created(),
                        byGroup.getOrDefault(g.uuid(), List.of())))
                .toList();
    }
}

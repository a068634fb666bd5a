package dev.baton.store;

import static dev.baton.store.Rows.instant;
import static dev.baton.store.Rows.micros;
import static dev.baton.store.Rows.nullableLong;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Query;

/**
 * {@link StoredChangePoints} and the revision of a series' change points inside a judgement's
 * transaction (docs/alerts.md, "Change points"; decision 0056).
 */
final class JdbcChangePoints implements StoredChangePoints {
    static final String SELECT = "SELECT c.id, c.uuid, c.project_id, t.uuid AS threshold_uuid, c.branch, c.testbed,"
            + " c.benchmark, c.measure, sr.uuid AS report_uuid, pr.uuid AS previous_report_uuid, c.hash,"
            + " c.previous_hash, c.start_at, c.before_mean, c.after_mean, c.change, c.change_low, c.change_high,"
            + " c.p_value, c.state, n.uuid AS replaced_by_uuid, a.uuid AS alert_uuid, g.uuid AS group_uuid,"
            + " a.triage, a.triage_note, a.triage_commit, a.triaged_by, a.triaged_at, fr.uuid AS found_uuid,"
            + " rr.uuid AS revised_uuid, c.created, c.modified, c.start_report_id, c.alert_id"
            + " FROM change_point c JOIN threshold t ON t.id = c.threshold_id"
            + " JOIN report sr ON sr.id = c.start_report_id LEFT JOIN report pr ON pr.id = c.previous_report_id"
            + " LEFT JOIN change_point n ON n.id = c.replaced_by LEFT JOIN alert a ON a.id = c.alert_id"
            + " LEFT JOIN alert_group g ON g.id = a.group_id JOIN report fr ON fr.id = c.found_report_id"
            + " JOIN report rr ON rr.id = c.revised_report_id";

    static final RowMapper<StoredChangePoint> MAPPER = (rs, ctx) -> new StoredChangePoint(
            rs.getLong("id"),
            rs.getString("uuid"),
            rs.getLong("project_id"),
            rs.getString("threshold_uuid"),
            rs.getString("branch"),
            rs.getString("testbed"),
            rs.getString("benchmark"),
            rs.getString("measure"),
            rs.getString("report_uuid"),
            rs.getString("previous_report_uuid"),
            rs.getString("hash"),
            rs.getString("previous_hash"),
            instant(rs, "start_at"),
            rs.getDouble("before_mean"),
            rs.getDouble("after_mean"),
            rs.getDouble("change"),
            rs.getDouble("change_low"),
            rs.getDouble("change_high"),
            rs.getDouble("p_value"),
            rs.getString("state"),
            rs.getString("replaced_by_uuid"),
            rs.getString("alert_uuid"),
            rs.getString("group_uuid"),
            rs.getString("triage") == null
                    ? Triage.NONE
                    : new Triage(
                            rs.getString("triage"),
                            rs.getString("triage_note"),
                            rs.getString("triage_commit"),
                            rs.getString("triaged_by"),
                            instant(rs, "triaged_at")),
            rs.getString("found_uuid"),
            rs.getString("revised_uuid"),
            instant(rs, "created"),
            instant(rs, "modified"));

    private final StoreContext context;

    JdbcChangePoints(StoreContext context) {
        this.context = context;
    }

    @Override
    public List<StoredChangePoint> changePoints(ChangePointFilter f) {
        return context.read(h -> {
            StringBuilder sql = new StringBuilder(SELECT + " WHERE c.project_id = :p");
            Map<String, Object> binds = new HashMap<>();
            filter(sql, binds, "c.branch", "branch", f.branch());
            filter(sql, binds, "c.testbed", "testbed", f.testbed());
            filter(sql, binds, "c.benchmark", "benchmark", f.benchmark());
            filter(sql, binds, "c.measure", "measure", f.measure());
            filter(sql, binds, "c.state", "state", f.state());
            filter(sql, binds, "g.uuid", "group", f.groupUuid());
            if (f.beforeId() != null) {
                sql.append(" AND c.id < :before");
                binds.put("before", f.beforeId());
            }
            sql.append(" ORDER BY c.id DESC LIMIT :limit");
            Query q = h.createQuery(sql.toString()).bind("p", f.projectId()).bind("limit", f.limit());
            binds.forEach(q::bind);
            return q.map(MAPPER).list();
        });
    }

    private static void filter(StringBuilder sql, Map<String, Object> binds, String column, String name, String v) {
        if (v == null) return;
        sql.append(" AND ").append(column).append(" = :").append(name);
        binds.put(name, v);
    }

    @Override
    public Optional<StoredChangePoint> findChangePoint(long projectId, String uuid) {
        return context.read(h -> h.createQuery(SELECT + " WHERE c.project_id = :p AND c.uuid = :uuid")
                .bind("p", projectId)
                .bind("uuid", uuid)
                .map(MAPPER)
                .findOne());
    }

    @Override
    public List<StoredChangePoint> ofGroups(List<Long> groupIds) {
        if (groupIds.isEmpty()) return List.of();
        return context.read(h -> h.createQuery(SELECT + " WHERE a.group_id IN (<ids>) ORDER BY c.id")
                .bindList("ids", groupIds)
                .map(MAPPER)
                .list());
    }

    /**
     * The alert of a change point of the series already stored with one, current or withdrawn,
     * whose first report is in the window up to {@code sameWithin} points from {@code revealed}:
     * the judgement that revealed it again (its replayed window had forgotten it) raises no
     * second alert, and the change point keeps this one (one change, one alert; decision 0061).
     */
    static Optional<Long> alertedAlready(
            Handle h,
            JudgedReport report,
            long thresholdId,
            String benchmark,
            String measure,
            ChangePointWindow w,
            FoundChangePoint revealed) {
        Map<Long, Integer> index = new HashMap<>();
        for (int i = 0; i < w.reportIds().size(); i++) index.put(w.reportIds().get(i), i);
        Long best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (Current c : h.createQuery(
                        "SELECT id, start_report_id, alert_id FROM change_point"
                                + " WHERE threshold_id = :t AND branch = :b AND testbed = :tb AND benchmark = :bench"
                                + " AND measure = :m AND state IN ('current', 'withdrawn') AND alert_id IS NOT NULL ORDER BY id")
                .bind("t", thresholdId)
                .bind("b", report.branch())
                .bind("tb", report.testbed())
                .bind("bench", benchmark)
                .bind("m", measure)
                .map((rs, ctx) ->
                        new Current(rs.getLong("id"), rs.getLong("start_report_id"), nullableLong(rs, "alert_id")))
                .list()) {
            Integer at = index.get(c.startReportId());
            if (at == null) continue;
            int d = Math.abs(at - revealed.index());
            if (d <= w.sameWithin() && d < bestDistance) {
                best = c.alertId();
                bestDistance = d;
            }
        }
        return Optional.ofNullable(best);
    }

    /** A stored current change point of the series: its id, first report and alert. */
    private record Current(long id, long startReportId, Long alertId) {}

    /**
     * Revises the series' stored change points against what the judgement of {@code report}
     * found (see {@link ChangePointWindow}); {@code alertId} is the alert the revealed one raised
     * (null: none). Runs in the judgement's transaction, which a report has once; what it moves
     * or withdraws of change points with an alert goes into {@code revisions} (for the webhooks).
     */
    static void revise(
            Handle h,
            JudgedReport report,
            long thresholdId,
            String benchmark,
            String measure,
            ChangePointWindow w,
            Long alertId,
            ChangePointRevisions revisions,
            Instant now) {
        List<Current> stored = h.createQuery("SELECT id, start_report_id, alert_id FROM change_point"
                        + " WHERE threshold_id = :t AND branch = :b AND testbed = :tb AND benchmark = :bench"
                        + " AND measure = :m AND state = 'current' ORDER BY id")
                .bind("t", thresholdId)
                .bind("b", report.branch())
                .bind("tb", report.testbed())
                .bind("bench", benchmark)
                .bind("m", measure)
                .map((rs, ctx) ->
                        new Current(rs.getLong("id"), rs.getLong("start_report_id"), nullableLong(rs, "alert_id")))
                .list();
        Map<Long, Integer> index = new HashMap<>();
        for (int i = 0; i < w.reportIds().size(); i++) index.put(w.reportIds().get(i), i);
        List<Current> open = new ArrayList<>(stored);
        for (FoundChangePoint f : w.found()) {
            Long alert = f.revealed() ? alertId : null;
            Current same = open.stream()
                    .filter(c -> c.startReportId() == f.startReportId())
                    .findFirst()
                    .orElse(null);
            if (same != null) {
                open.remove(same);
                update(h, same.id(), f, alert, report, now);
                continue;
            }
            Current near = null;
            for (Current c : open) {
                Integer at = index.get(c.startReportId());
                if (at == null || Math.abs(at - f.index()) > w.sameWithin()) continue;
                if (near == null || Math.abs(at - f.index()) < Math.abs(index.get(near.startReportId()) - f.index()))
                    near = c;
            }
            if (near != null && alert == null) alert = near.alertId();
            Optional<Long> inserted = insert(h, report, thresholdId, benchmark, measure, f, alert, now);
            if (near != null && inserted.isPresent()) {
                open.remove(near);
                h.createUpdate("UPDATE change_point SET state = 'moved', replaced_by = :n, revised_report_id = :r,"
                                + " modified = :now WHERE id = :id")
                        .bind("n", inserted.get())
                        .bind("r", report.id())
                        .bind("now", micros(now))
                        .bind("id", near.id())
                        .execute();
                revisions.moved(near.alertId());
            }
        }
        // Stored ones in the window that the judgement did not find any more.
        for (Current c : open) {
            if (!index.containsKey(c.startReportId())) continue;
            h.createUpdate("UPDATE change_point SET state = 'withdrawn', revised_report_id = :r, modified = :now"
                            + " WHERE id = :id")
                    .bind("r", report.id())
                    .bind("now", micros(now))
                    .bind("id", c.id())
                    .execute();
            revisions.withdrawn(c.alertId());
        }
    }

    private static void update(Handle h, long id, FoundChangePoint f, Long alert, JudgedReport report, Instant now) {
        h.createUpdate("UPDATE change_point SET before_mean = :before, after_mean = :after, change = :change,"
                        + " change_low = :low, change_high = :high, p_value = :pv, alert_id = COALESCE(alert_id, :alert),"
                        + " revised_report_id = :r, modified = :now WHERE id = :id")
                .bind("before", f.before())
                .bind("after", f.after())
                .bind("change", f.change())
                .bind("low", f.changeLow())
                .bind("high", f.changeHigh())
                .bind("pv", f.pValue())
                .bind("alert", alert)
                .bind("r", report.id())
                .bind("now", micros(now))
                .bind("id", id)
                .execute();
    }

    private static Optional<Long> insert(
            Handle h,
            JudgedReport report,
            long thresholdId,
            String benchmark,
            String measure,
            FoundChangePoint f,
            Long alert,
            Instant now) {
        return h.createQuery("INSERT INTO change_point (uuid, project_id, threshold_id, branch, testbed, benchmark,"
                        + " measure, start_report_id, previous_report_id, hash, previous_hash, start_at, before_mean,"
                        + " after_mean, change, change_low, change_high, p_value, state, alert_id, found_report_id,"
                        + " revised_report_id, created, modified) VALUES (:uuid, :p, :t, :b, :tb, :bench, :m, :sr, :pr,"
                        + " :hash, :prev, :at, :before, :after, :change, :low, :high, :pv, 'current', :alert, :r, :r,"
                        + " :now, :now) ON CONFLICT DO NOTHING RETURNING id")
                .bind("uuid", UUID.randomUUID().toString())
                .bind("p", report.projectId())
                .bind("t", thresholdId)
                .bind("b", report.branch())
                .bind("tb", report.testbed())
                .bind("bench", benchmark)
                .bind("m", measure)
                .bind("sr", f.startReportId())
                .bind("pr", f.previousReportId())
                .bind("hash", f.hash())
                .bind("prev", f.previousHash())
                .bind("at", micros(f.startAt()))
                .bind("before", f.before())
                .bind("after", f.after())
                .bind("change", f.change())
                .bind("low", f.changeLow())
                .bind("high", f.changeHigh())
                .bind("pv", f.pValue())
                .bind("alert", alert)
                .bind("r", report.id())
                .bind("now", micros(now))
                .mapTo(Long.class)
                .findFirst();
    }
}

package dev.baton.store;

import static dev.baton.store.Rows.instant;
import static dev.baton.store.Rows.nullableDouble;

import org.jdbi.v3.core.mapper.RowMapper;

/** How an alert is read: the query's head (an alert with its report, metric, threshold and group) and its row mapper. */
final class AlertRows {
    private AlertRows() {}

    static final String ALERT =
            "SELECT a.id, a.uuid, a.project_id, r.uuid AS report_uuid, m.branch, m.testbed, m.hash, m.benchmark,"
                    + " m.measure, t.uuid AS threshold_uuid, b.model, a.side, a.value, a.limit_value, a.baseline_size, a.baseline_mean,"
                    + " a.baseline_stddev, a.status, a.created, a.modified, g.uuid AS group_uuid, a.triage, a.triage_note,"
                    + " a.triage_commit, a.triaged_by, a.triaged_at FROM alert a JOIN report r ON r.id = a.report_id"
                    + " LEFT JOIN alert_group g ON g.id = a.group_id"
                    + " JOIN metric m ON m.id = a.metric_id JOIN threshold t ON t.id = a.threshold_id"
                    + " JOIN metric_boundary b ON b.metric_id = a.metric_id AND b.threshold_id = a.threshold_id";
    static final RowMapper<Alert> ALERT_MAPPER = (rs, ctx) -> new Alert(
            rs.getLong("id"),
            rs.getString("uuid"),
            rs.getLong("project_id"),
            rs.getString("report_uuid"),
            rs.getString("branch"),
            rs.getString("testbed"),
            rs.getString("hash"),
            rs.getString("benchmark"),
            rs.getString("measure"),
            rs.getString("threshold_uuid"),
            rs.getString("model"),
            rs.getString("side"),
            rs.getDouble("value"),
            rs.getDouble("limit_value"),
            rs.getInt("baseline_size"),
            nullableDouble(rs, "baseline_mean"),
            nullableDouble(rs, "baseline_stddev"),
            rs.getString("status"),
            instant(rs, "created"),
            instant(rs, "modified"),
            rs.getString("group_uuid"),
            new Triage(
                    rs.getString("triage"),
                    rs.getString("triage_note"),
                    rs.getString("triage_commit"),
                    rs.getString("triaged_by"),
                    instant(rs, "triaged_at")));
}

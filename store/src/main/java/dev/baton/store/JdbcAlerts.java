package dev.baton.store;

import static dev.baton.store.AlertRows.ALERT;
import static dev.baton.store.AlertRows.ALERT_MAPPER;
import static dev.baton.store.Rows.instant;
import static dev.baton.store.Rows.micros;
import static dev.baton.store.Rows.nullableDouble;
import static dev.baton.store.Rows.nullableLong;

import dev.baton.protocol.job.JobStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Query;

/** {@link Alerts} in SQL both dialects accept, on the store's transactions ({@link StoreContext}). */
final class JdbcAlerts implements Alerts {
    private static final String POINT =
            "SELECT m.id, r.uuid AS report_uuid, m.branch, m.testbed, m.hash, m.benchmark, m.measure, m.value, m.at"
                    + " FROM metric m JOIN report r ON r.id = m.report_id";

    private static final RowMapper<MetricPoint> POINT_MAPPER = (rs, ctx) -> new MetricPoint(
            rs.getLong("id"),
            rs.getString("report_uuid"),
            rs.getString("branch"),
            rs.getString("testbed"),
            rs.getString("hash"),
            rs.getString("benchmark"),
            rs.getString("measure"),
            rs.getDouble("value"),
            instant(rs, "at"),
            List.of());

    private final StoreContext context;
    private final Webhooks webhooks;
    private final StoredChangePoints changePoints;
    private final CodeHosts codeHosts;
    private final Thresholds thresholds;
    private final AlertGroups groups;

    JdbcAlerts(StoreContext context) {
        this.context = context;
        this.webhooks = new JdbcWebhooks(context);
        this.changePoints = new JdbcChangePoints(context);
        this.codeHosts = new JdbcCodeHosts(context);
        this.thresholds = new JdbcThresholds(context);
        this.groups = new JdbcAlertGroups(context);
    }

    @Override
    public Thresholds thresholds() {
        return thresholds;
    }

    @Override
    public AlertGroups groups() {
        return groups;
    }

    @Override
    public Webhooks webhooks() {
        return webhooks;
    }

    @Override
    public StoredChangePoints changePoints() {
        return changePoints;
    }

    @Override
    public CodeHosts codeHosts() {
        return codeHosts;
    }

    // ---- judging ----------------------------------------------------------------------------

    private static final String PROCESSED = "r.results IS NOT NULL AND r.error IS NULL AND (j.id IS NULL OR j.status = "
            + JobStatus.PROCESSED.code() + ")";

    @Override
    public Optional<JudgedReport> processedReport(long reportId) {
        return context.readPlain(c -> context
                .statements
                .on(c, PROCESSED_REPORT)
                .bind("id", reportId)
                .list(rs -> new JudgedReport(
                        rs.getLong("id"),
                        rs.getString("uuid"),
                        rs.getLong("project_id"),
                        rs.getString("branch"),
                        rs.getString("testbed"),
                        nullableLong(rs, "spec_id"),
                        rs.getString("hash"),
                        instant(rs, "end_time"),
                        rs.getString("results"),
                        rs.getInt("judged") > 0))
                .stream()
                .findFirst());
    }

    private static final String PROCESSED_REPORT =
            "SELECT r.id, r.uuid, r.project_id, r.branch, r.testbed, j.spec_id, r.hash, r.end_time,"
                    + " r.results, (SELECT COUNT(*) FROM report_judgement g WHERE g.report_id = r.id) AS judged"
                    + " FROM report r LEFT JOIN job j ON j.report_id = r.id WHERE r.id = :id AND " + PROCESSED;

    @Override
    public List<Long> unjudgedReports(Instant modifiedSince, int limit) {
        return context.read(h -> {
            Query q = h.createQuery(
                            "SELECT r.id FROM report r LEFT JOIN job j ON j.report_id = r.id WHERE " + PROCESSED
                                    + (modifiedSince == null ? "" : " AND r.modified >= :since")
                                    + " AND NOT EXISTS (SELECT 1 FROM report_judgement g WHERE g.report_id = r.id) ORDER BY r.end_time, r.id LIMIT :limit")
                    .bind("limit", limit);
            if (modifiedSince != null) q.bind("since", micros(modifiedSince));
            return q.mapTo(Long.class).list();
        });
    }

    @Override
    public List<Double> baseline(BaselineQuery q) {
        return baselineQuery(q, "value", (rs, ctx) -> rs.getDouble("value"));
    }

    @Override
    public List<HistoryValue> baselineHistory(BaselineQuery q) {
        return baselineQuery(
                q,
                "report_id, hash, value, at",
                (rs, ctx) -> new HistoryValue(
                        rs.getLong("report_id"), rs.getString("hash"), rs.getDouble("value"), instant(rs, "at")));
    }

    private <T> List<T> baselineQuery(BaselineQuery q, String columns, RowMapper<T> mapper) {
        return context.read(h -> {
            StringBuilder sql = new StringBuilder("SELECT " + columns
                    + " FROM metric WHERE project_id = :p AND branch = :branch AND testbed = :testbed"
                    + " AND benchmark = :benchmark AND measure = :measure AND at <= :until AND report_id <> :exclude");
            if (q.specId() != null) sql.append(" AND spec_id = :spec");
            if (q.since() != null) sql.append(" AND at >= :since");
            sql.append(" ORDER BY at DESC, id DESC");
            if (q.limit() != null) sql.append(" LIMIT :limit");
            Query query = h.createQuery(sql.toString())
                    .bind("p", q.projectId())
                    .bind("branch", q.branch())
                    .bind("testbed", q.testbed())
                    .bind("benchmark", q.benchmark())
                    .bind("measure", q.measure())
                    .bind("until", micros(q.until()))
                    .bind("exclude", q.excludeReport());
            if (q.specId() != null) query.bind("spec", q.specId());
            if (q.since() != null) query.bind("since", micros(q.since()));
            if (q.limit() != null) query.bind("limit", q.limit());
            return query.map(mapper).list();
        });
    }

    private static final RowMapper<StartPoint> START_MAPPER = (rs, ctx) -> new StartPoint(
            rs.getLong("project_id"),
            rs.getString("branch"),
            rs.getString("start_branch"),
            nullableLong(rs, "start_report_id"),
            instant(rs, "until"));
    private static final String START = "SELECT s.project_id, s.branch, s.start_branch, s.start_report_id,"
            + " COALESCE(r.end_time, s.created) AS until FROM branch_start_point s LEFT JOIN report r ON r.id = s.start_report_id";

    @Override
    public Optional<StartPoint> startPoint(long projectId, String branch) {
        return context.read(h -> h.createQuery(START + " WHERE s.project_id = :p AND s.branch = :b")
                .bind("p", projectId)
                .bind("b", branch)
                .map(START_MAPPER)
                .findOne());
    }

    @Override
    public Optional<Long> latestReport(long projectId, String branch, String hash) {
        return context.read(
                h -> h.createQuery("SELECT id FROM report WHERE project_id = :p AND branch = :b AND hash = :hash"
                                + " ORDER BY end_time DESC, id DESC LIMIT 1")
                        .bind("p", projectId)
                        .bind("b", branch)
                        .bind("hash", hash)
                        .mapTo(Long.class)
                        .findOne());
    }

    @Override
    public void setReportHash(long reportId, String hash) {
        context.write(h -> h.createUpdate("UPDATE report SET hash = :hash WHERE id = :id")
                .bind("hash", hash)
                .bind("id", reportId)
                .execute());
    }

    @Override
    public StartPoint setStartPointIfAbsent(
            long projectId, String branch, String startBranch, Long startReportId, Instant now) {
        return context.write(h -> {
            if (startReportId != null
                    && h.createQuery("SELECT COUNT(*) FROM report WHERE id = :id AND project_id = :p AND branch = :b")
                                    .bind("id", startReportId)
                                    .bind("p", projectId)
                                    .bind("b", startBranch)
                                    .mapTo(Integer.class)
                                    .one()
                            == 0) {
                throw new StoreException(
                        StoreException.Reason.NOT_FOUND,
                        "the start point's report is not on branch '" + startBranch + "'");
            }
            h.createUpdate("INSERT INTO branch_start_point (project_id, branch, start_branch, start_report_id, created)"
                            + " VALUES (:p, :b, :sb, :sr, :now) ON CONFLICT DO NOTHING")
                    .bind("p", projectId)
                    .bind("b", branch)
                    .bind("sb", startBranch)
                    .bind("sr", startReportId)
                    .bind("now", micros(now))
                    .execute();
            return h.createQuery(START + " WHERE s.project_id = :p AND s.branch = :b")
                    .bind("p", projectId)
                    .bind("b", branch)
                    .map(START_MAPPER)
                    .one();
        });
    }

    @Override
    public Optional<List<Alert>> recordJudgement(JudgedReport report, List<MetricJudgement> metrics, Instant now) {
        return context.write(h -> JudgementWrite.record(h, report, metrics, now));
    }

    // ---- reading ----------------------------------------------------------------------------

    @Override
    public List<MetricPoint> reportMetrics(long reportId) {
        return context.read(h -> withBoundaries(
                h,
                h.createQuery(POINT + " WHERE m.report_id = :r ORDER BY m.id")
                        .bind("r", reportId)
                        .map(POINT_MAPPER)
                        .list()));
    }

    @Override
    public List<MetricPoint> history(HistoryQuery q) {
        return context.read(h -> {
            StringBuilder sql = new StringBuilder(
                    POINT + " WHERE m.project_id = :p AND m.benchmark = :benchmark AND m.measure = :measure");
            if (q.branch() != null) sql.append(" AND m.branch = :branch");
            if (q.testbed() != null) sql.append(" AND m.testbed = :testbed");
            if (q.beforeId() != null) sql.append(" AND m.id < :before");
            sql.append(" ORDER BY m.id DESC LIMIT :limit");
            Query query = h.createQuery(sql.toString())
                    .bind("p", q.projectId())
                    .bind("benchmark", q.benchmark())
                    .bind("measure", q.measure())
                    .bind("limit", q.limit());
            if (q.branch() != null) query.bind("branch", q.branch());
            if (q.testbed() != null) query.bind("testbed", q.testbed());
            if (q.beforeId() != null) query.bind("before", q.beforeId());
            return withBoundaries(h, query.map(POINT_MAPPER).list());
        });
    }

    @Override
    public List<MetricName> metricNames(long projectId) {
        return context.read(h -> h.createQuery(
                        "SELECT DISTINCT benchmark, measure FROM metric WHERE project_id = :p ORDER BY benchmark, measure")
                .bind("p", projectId)
                .map((rs, ctx) -> new MetricName(rs.getString("benchmark"), rs.getString("measure")))
                .list());
    }

    @Override
    public Optional<String> reportHash(long reportId) {
        return context.read(
                h -> h
                        .createQuery("SELECT hash FROM report WHERE id = :id")
                        .bind("id", reportId)
                        .mapTo(String.class)
                        .list()
                        .stream()
                        .filter(hash -> hash != null)
                        .findFirst());
    }

    private static List<MetricPoint> withBoundaries(Handle h, List<MetricPoint> points) {
        if (points.isEmpty()) return points;
        Map<Long, List<MetricPoint.StoredBoundary>> byMetric = new LinkedHashMap<>();
        h.createQuery(
                        "SELECT b.metric_id, t.uuid, b.model, b.lower_limit, b.upper_limit, b.baseline_size, b.baseline_mean, b.baseline_stddev"
                                + " FROM metric_boundary b JOIN threshold t ON t.id = b.threshold_id WHERE b.metric_id IN (<ids>) ORDER BY b.threshold_id")
                .bindList("ids", points.stream().map(MetricPoint::id).toList())
                .map((rs, ctx) -> {
                    byMetric.computeIfAbsent(rs.getLong("metric_id"), k -> new ArrayList<>())
                            .add(new MetricPoint.StoredBoundary(
                                    rs.getString("uuid"),
                                    rs.getString("model"),
                                    nullableDouble(rs, "lower_limit"),
                                    nullableDouble(rs, "upper_limit"),
                                    rs.getInt("baseline_size"),
                                    nullableDouble(rs, "baseline_mean"),
                                    nullableDouble(rs, "baseline_stddev")));
                    return 0;
                })
                .list();
        return points.stream()
                .map(p -> new MetricPoint(
                        p.id(),
                        p.reportUuid(),
                        p.branch(),
                        p.testbed(),
                        p.hash(),
                        p.benchmark(),
                        p.measure(),
                        p.value(),
                        p.at(),
                        byMetric.getOrDefault(p.id(), List.of())))
                .toList();
    }

    @Override
    public List<Alert> alerts(AlertFilter f) {
        return context.read(h -> {
            StringBuilder sql = new StringBuilder(ALERT + " WHERE a.project_id = :p");
            if (f.status() != null) sql.append(" AND a.status = :status");
            if (f.branch() != null) sql.append(" AND m.branch = :branch");
            if (f.benchmark() != null) sql.append(" AND m.benchmark = :benchmark");
            if (f.reportUuid() != null) sql.append(" AND r.uuid = :report");
            if (f.beforeId() != null) sql.append(" AND a.id < :before");
            sql.append(" ORDER BY a.id DESC LIMIT :limit");
            Query q = h.createQuery(sql.toString()).bind("p", f.projectId()).bind("limit", f.limit());
            if (f.status() != null) q.bind("status", f.status());
            if (f.branch() != null) q.bind("branch", f.branch());
            if (f.benchmark() != null) q.bind("benchmark", f.benchmark());
            if (f.reportUuid() != null) q.bind("report", f.reportUuid());
            if (f.beforeId() != null) q.bind("before", f.beforeId());
            return q.map(ALERT_MAPPER).list();
        });
    }

    @Override
    public Optional<Alert> findAlert(long projectId, String uuid) {
        return context.read(h -> h.createQuery(ALERT + " WHERE a.project_id = :p AND a.uuid = :uuid")
                .bind("p", projectId)
                .bind("uuid", uuid)
                .map(ALERT_MAPPER)
                .findOne());
    }

    @Override
    public Optional<Alert> setAlertStatus(long projectId, String uuid, String status, Instant now) {
        return context.write(h -> {
            int n = h.createUpdate(
                            "UPDATE alert SET status = :status, modified = :now WHERE project_id = :p AND uuid = :uuid")
                    .bind("status", status)
                    .bind("now", micros(now))
                    .bind("p", projectId)
                    .bind("uuid", uuid)
                    .execute();
            if (n == 0) return Optional.<Alert>empty();
            return h.createQuery(ALERT + " WHERE a.project_id = :p AND a.uuid = :uuid")
                    .bind("p", projectId)
                    .bind("uuid", uuid)
                    .map(ALERT_MAPPER)
                    .findOne();
        });
    }
}

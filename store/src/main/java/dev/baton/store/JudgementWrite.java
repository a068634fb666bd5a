package dev.baton.store;

import static dev.baton.store.AlertRows.ALERT;
import static dev.baton.store.AlertRows.ALERT_MAPPER;
import static dev.baton.store.Rows.micros;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * What recording a report's judgement writes, all in the caller's one transaction
 * ({@link Alerts#recordJudgement}): the claim on the report (a second judgement of it writes
 * nothing), its pull-request comment queued, each metric with its boundaries, the alerts a boundary
 * raised in their groups (decision 0049), the change points revised, and the webhook outbox for
 * the new alerts and revisions. One transaction, so a judged report never has half its alerts or
 * an alert no webhook hears of.
 */
final class JudgementWrite {
    private JudgementWrite() {}

    /** The alerts raised, or empty when the report was judged already (nothing written). */
    static Optional<List<Alert>> record(Handle h, JudgedReport report, List<MetricJudgement> metrics, Instant now) {
        int claimed = h.createUpdate(
                        "INSERT INTO report_judgement (report_id, judged) VALUES (:r, :now) ON CONFLICT DO NOTHING")
                .bind("r", report.id())
                .bind("now", micros(now))
                .execute();
        if (claimed == 0) return Optional.empty();
        // Results where the pull request is (docs/pull-requests.md): queued with the judgement.
        JdbcCodeHosts.enqueue(h, report.projectId(), report.id(), now);
        List<Long> alertIds = new ArrayList<>();
        ChangePointRevisions revisions = new ChangePointRevisions();
        // The group of the alerts this judgement raises (decision 0049), made at the first
        // alert; its commit range starts after the newest report judged before on the branch.
        Long groupId = null;
        for (MetricJudgement m : metrics) {
            long metricId = h.createQuery(
                            "INSERT INTO metric (report_id, project_id, branch, testbed, spec_id, hash, benchmark, measure,"
                                    + " value, at) VALUES (:r, :p, :branch, :testbed, :spec, :hash, :benchmark, :measure, :value, :at) RETURNING id")
                    .bind("r", report.id())
                    .bind("p", report.projectId())
                    .bind("branch", report.branch())
                    .bind("testbed", report.testbed())
                    .bind("spec", report.specId())
                    .bind("hash", report.hash())
                    .bind("benchmark", m.benchmark())
                    .bind("measure", m.measure())
                    .bind("value", m.value())
                    .bind("at", micros(report.endTime()))
                    .mapTo(Long.class)
                    .one();
            for (MetricJudgement.Boundary b : m.boundaries()) {
                h.createUpdate(
                                "INSERT INTO metric_boundary (metric_id, threshold_id, model, lower_limit, upper_limit, baseline_size,"
                                        + " baseline_mean, baseline_stddev) VALUES (:m, :t, :model, :lower, :upper, :size, :mean, :sd)")
                        .bind("m", metricId)
                        .bind("t", b.thresholdId())
                        .bind("model", b.model())
                        .bind("lower", b.lowerLimit())
                        .bind("upper", b.upperLimit())
                        .bind("size", b.baselineSize())
                        .bind("mean", b.baselineMean())
                        .bind("sd", b.baselineStddev())
                        .execute();
                if (b.alertSide() == null) {
                    if (b.changePoints() != null) revise(h, report, m, b, null, revisions, now);
                    continue;
                }
                FoundChangePoint revealed = b.changePoints() == null
                        ? null
                        : b.changePoints().found().stream()
                                .filter(FoundChangePoint::revealed)
                                .findFirst()
                                .orElse(null);
                Optional<Long> earlier = revealed == null
                        ? Optional.empty()
                        : JdbcChangePoints.alertedAlready(
                                h, report, b.thresholdId(), m.benchmark(), m.measure(), b.changePoints(), revealed);
                if (earlier.isPresent()) {
                    // Alerted already: the change point is revised and keeps its alert.
                    revise(h, report, m, b, earlier.get(), revisions, now);
                    continue;
                }
                // A change point's alert joins the group of the report where its change
                // starts, so one change across many metrics is one group whichever later
                // report revealed it for each metric.
                long alertGroup;
                if (revealed != null) {
                    alertGroup = groupOf(h, revealed.startReportId(), now);
                } else {
                    if (groupId == null) groupId = groupOf(h, report.id(), now);
                    alertGroup = groupId;
                }
                double limit = "lower".equals(b.alertSide()) ? b.lowerLimit() : b.upperLimit();
                alertIds.add(h.createQuery(
                                "INSERT INTO alert (uuid, project_id, report_id, metric_id, threshold_id, side, value,"
                                        + " limit_value, baseline_size, baseline_mean, baseline_stddev, status, created, modified, group_id)"
                                        + " VALUES (:uuid, :p, :r, :m, :t, :side, :value, :limit, :size, :mean, :sd, :status, :now, :now, :g)"
                                        + " RETURNING id")
                        .bind("uuid", UUID.randomUUID().toString())
                        .bind("p", report.projectId())
                        .bind("r", report.id())
                        .bind("m", metricId)
                        .bind("t", b.thresholdId())
                        .bind("side", b.alertSide())
                        .bind("value", m.value())
                        .bind("limit", limit)
                        .bind("size", b.baselineSize())
                        .bind("mean", b.baselineMean())
                        .bind("sd", b.baselineStddev())
                        .bind("status", Alert.ACTIVE)
                        .bind("now", micros(now))
                        .bind("g", alertGroup)
                        .mapTo(Long.class)
                        .one());
                if (b.changePoints() != null) revise(h, report, m, b, alertIds.getLast(), revisions, now);
            }
        }
        JdbcWebhooks.enqueueRevisions(h, report, revisions, now);
        if (alertIds.isEmpty()) return Optional.of(List.<Alert>of());
        // The outbox: every webhook of the project gets every new alert, committed with the alerts.
        for (long alertId : alertIds) {
            h.createUpdate(
                            "INSERT INTO webhook_delivery (webhook_id, alert_id, attempts, next_attempt, created)"
                                    + " SELECT id, :alert, 0, :now, :now FROM webhook WHERE project_id = :p AND deleted IS NULL")
                    .bind("alert", alertId)
                    .bind("now", micros(now))
                    .bind("p", report.projectId())
                    .execute();
        }
        return Optional.of(h.createQuery(ALERT + " WHERE a.id IN (<ids>) ORDER BY a.id")
                .bindList("ids", alertIds)
                .map(ALERT_MAPPER)
                .list());
    }

    /** The boundary's change points revised in this judgement, {@code alertId} (null: none) the alert they keep or get. */
    private static void revise(
            Handle h,
            JudgedReport report,
            MetricJudgement m,
            MetricJudgement.Boundary b,
            Long alertId,
            ChangePointRevisions revisions,
            Instant now) {
        JdbcChangePoints.revise(
                h, report, b.thresholdId(), m.benchmark(), m.measure(), b.changePoints(), alertId, revisions, now);
    }

    /**
     * The group of the report's alerts (decision 0049), made when its first alert is raised: one
     * per report, whichever judgement makes it first (its own, or a later one whose change point
     * starts at this report). Its commit range starts after the newest report judged before it
     * on the branch and testbed.
     */
    private static long groupOf(Handle h, long reportId, Instant now) {
        Optional<Long> existing = h.createQuery("SELECT id FROM alert_group WHERE report_id = :r")
                .bind("r", reportId)
                .mapTo(Long.class)
                .findFirst();
        if (existing.isPresent()) return existing.get();
        h.createUpdate("INSERT INTO alert_group (uuid, project_id, report_id, branch, testbed, hash, previous_hash,"
                        + " created) SELECT :uuid, r.project_id, r.id, r.branch, r.testbed, r.hash, (SELECT m.hash FROM"
                        + " metric m WHERE m.project_id = r.project_id AND m.branch = r.branch AND m.testbed = r.testbed"
                        + " AND m.report_id <> r.id AND m.at <= r.end_time ORDER BY m.at DESC, m.id DESC LIMIT 1), :now"
                        + " FROM report r WHERE r.id = :r ON CONFLICT DO NOTHING")
                .bind("uuid", UUID.randomUUID().toString())
                .bind("r", reportId)
                .bind("now", micros(now))
                .execute();
        return h.createQuery("SELECT id FROM alert_group WHERE report_id = :r")
                .bind("r", reportId)
                .mapTo(Long.class)
                .one();
    }
}

package dev.baton.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The store's alerts part (docs/alerts.md): judged metrics with their boundaries, alerts and
 * branch start points, with thresholds, groups, webhooks, change points and code hosts as parts
 * of their own. Reached through {@link Store#alerts()}.
 */
public interface Alerts {

    /** Alert webhooks and their outbox. */
    Webhooks webhooks();

    /** Stored change points (docs/alerts.md, "Change points"). */
    StoredChangePoints changePoints();

    /** Code hosts (GitHub, GitLab), their outbox and sticky comments (docs/pull-requests.md). */
    CodeHosts codeHosts();

    /** The project's thresholds (docs/alerts.md, "Thresholds"). */
    Thresholds thresholds();

    /** Alert groups and the triage of alerts (docs/alerts.md, "Triage and groups"). */
    AlertGroups groups();

    // ---- judging ----------------------------------------------------------------------------

    /** The report, if its results were processed (a direct run's, or a processed job's). */
    Optional<JudgedReport> processedReport(long reportId);

    /** Processed reports not judged yet, oldest first (startup and sweep recovery). */
    default List<Long> unjudgedReports(int limit) {
        return unjudgedReports(null, limit);
    }

    /** As {@link #unjudgedReports(int)}, among reports changed since {@code modifiedSince} (null: all). */
    List<Long> unjudgedReports(Instant modifiedSince, int limit);

    /** Values of a metric's history, newest first (see {@link BaselineQuery}). */
    List<Double> baseline(BaselineQuery query);

    /** As {@link #baseline}, each value with its report and commit (a change point's range). */
    List<HistoryValue> baselineHistory(BaselineQuery query);

    Optional<StartPoint> startPoint(long projectId, String branch);

    /** The newest report of the branch that measured this commit. */
    Optional<Long> latestReport(long projectId, String branch, String hash);

    /** Records the git commit a run measured. */
    void setReportHash(long reportId, String hash);

    /**
     * Records the branch's start point unless it has one; returns the one in force. A start
     * report of another project or branch is refused (INVALID).
     */
    StartPoint setStartPointIfAbsent(
            long projectId, String branch, String startBranch, Long startReportId, Instant now);

    /**
     * Writes the report's judged metrics, boundaries and alerts in one transaction, once: when
     * the report was judged already (another node, a restart) nothing is written and the result
     * is empty. Otherwise the alerts raised, in the order given; each is queued for every webhook
     * of the project in the same transaction (the outbox). A {@code change_point} boundary's
     * window revises the series' stored change points in the same transaction; an alert it
     * raised joins the group of the report where its change starts (one change across many
     * metrics of one commit range is one group).
     */
    Optional<List<Alert>> recordJudgement(JudgedReport report, List<MetricJudgement> metrics, Instant now);

    // ---- reading ----------------------------------------------------------------------------

    /** The report's judged metrics with their boundaries (empty until judged). */
    List<MetricPoint> reportMetrics(long reportId);

    List<MetricPoint> history(HistoryQuery query);

    /** Every benchmark and measure of the project's judged metrics, by benchmark then measure. */
    List<MetricName> metricNames(long projectId);

    /** The git commit the report measured, when its run named one. */
    Optional<String> reportHash(long reportId);

    List<Alert> alerts(AlertFilter filter);

    Optional<Alert> findAlert(long projectId, String uuid);

    /** Sets an alert's status; empty when the project has no such alert. */
    Optional<Alert> setAlertStatus(long projectId, String uuid, String status, Instant now);
}

package dev.baton.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The store's alerts part (docs/alerts.md): thresholds, judged metrics with their boundaries,
 * alerts and branch start points. Reached through {@link Store#alerts()}.
 */
public interface AlertStore {

    /** Alert webhooks and their outbox. */
    WebhookStore webhooks();

    // ---- thresholds ---------------------------------------------------------------------------

    Threshold createThreshold(long projectId, ThresholdRule rule, Instant now);

    /** The project's thresholds that are not deleted, oldest first. */
    List<Threshold> thresholds(long projectId);

    /** A threshold of the project that is not deleted. */
    Optional<Threshold> findThreshold(long projectId, String uuid);

    /** Replaces the rule; empty when there is no such (undeleted) threshold. */
    Optional<Threshold> updateThreshold(long projectId, String uuid, ThresholdRule rule, Instant now);

    /** Marks it deleted; false when there was none. */
    boolean deleteThreshold(long projectId, String uuid, Instant now);

    /** Measures the project's judged metrics have used (to tell a typo from a measure). */
    List<String> measuresSeen(long projectId);

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
     * of the project in the same transaction (the outbox).
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

    // ---- triage and groups (docs/alerts.md, "Triage and groups") -----------------------------

    /** Sets one alert's triage; empty when the project has no such alert. */
    Optional<Alert> triageAlert(long projectId, String uuid, Triage triage);

    /** The project's alert groups with their alerts, newest first. */
    List<AlertGroup> alertGroups(AlertGroupFilter filter);

    Optional<AlertGroup> findAlertGroup(long projectId, String uuid);

    /** Sets the triage of every alert of the group in one transaction; empty when there is no such group. */
    Optional<AlertGroup> triageAlertGroup(long projectId, String uuid, Triage triage);
}

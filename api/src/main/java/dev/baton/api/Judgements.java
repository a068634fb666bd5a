package dev.baton.api;

import dev.baton.alerts.Judge;
import dev.baton.store.AlertFilter;
import dev.baton.store.Report;
import dev.baton.store.Store;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What judging made of a report, for the report's views (docs/alerts.md). */
final class Judgements {
    private static final Logger LOG = LoggerFactory.getLogger(Judgements.class);
    /** Every alert of one report: at most one per metric, threshold and side. */
    private static final int ALL = 10_000;

    private Judgements() {}

    /** Judges a report now; a failure is logged and left to the judging sweep, never failing the run. */
    static void judge(Store store, Clock clock, long reportId) {
        try {
            new Judge(store.alerts(), clock).judge(reportId);
        } catch (RuntimeException e) {
            LOG.warn("judging report {} failed; the sweep judges it later: {}", reportId, e.toString());
        }
    }

    /** The view with the report's judged metrics, their boundaries and its alerts (judged false and none while not judged). */
    static ReportView add(Store store, Report report, ReportView view) {
        boolean judged =
                store.alerts().processedReport(report.id()).map(r -> r.judged()).orElse(false);
        return view.withJudgement(
                judged,
                store.alerts().reportMetrics(report.id()).stream()
                        .map(MetricView::of)
                        .toList(),
                store
                        .alerts()
                        .alerts(new AlertFilter(
                                report.projectId(),
                                null,
                                null,
                                null,
                                report.uuid().toString(),
                                null,
                                ALL))
                        .stream()
                        .map(AlertView::of)
                        .toList());
    }
}

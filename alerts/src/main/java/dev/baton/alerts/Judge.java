package dev.baton.alerts;

import dev.baton.core.adapter.Metric;
import dev.baton.core.adapter.Metrics;
import dev.baton.core.adapter.ReportResults;
import dev.baton.store.Alert;
import dev.baton.store.Alerts;
import dev.baton.store.BaselineQuery;
import dev.baton.store.ChangePointWindow;
import dev.baton.store.HistoryValue;
import dev.baton.store.JudgedReport;
import dev.baton.store.MetricJudgement;
import dev.baton.store.StartPoint;
import dev.baton.store.Threshold;
import dev.baton.store.ThresholdRule;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Judges a processed report's metrics (docs/alerts.md, "Judging"): for every metric, every
 * matching threshold computes the boundary from the metric's baseline, and a value outside it
 * raises an alert. The baseline is read before the write; the write itself happens once per
 * report ({@link Alerts#recordJudgement}), so two nodes or a restart judging the same report
 * leave one judgement. Listeners hear the alerts of each judgement that was written.
 */
public final class Judge {
    private final Alerts store;
    private final Clock clock;
    private final List<Consumer<List<Alert>>> listeners = new CopyOnWriteArrayList<>();

    public Judge(Alerts store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Hears the alerts each written judgement raised (never an empty list). */
    public void onAlerts(Consumer<List<Alert>> listener) {
        listeners.add(listener);
    }

    /**
     * Judges the report if it is processed and not judged yet; returns the alerts it raised
     * (empty when it raised none, was judged already, or is not processed).
     */
    public List<Alert> judge(long reportId) {
        Optional<JudgedReport> found = store.processedReport(reportId);
        if (found.isEmpty() || found.get().judged()) return List.of();
        JudgedReport report = found.get();
        Metrics metrics = ReportResults.fromJson(report.results())
                .map(ReportResults::results)
                .orElse(Metrics.EMPTY);
        if (metrics == null) metrics = Metrics.EMPTY;
        List<Threshold> thresholds = store.thresholds().list(report.projectId()).stream()
                .filter(t -> matchesReport(t.rule(), report))
                .toList();
        Optional<StartPoint> start =
                thresholds.isEmpty() ? Optional.empty() : store.startPoint(report.projectId(), report.branch());
        List<MetricJudgement> judged = new ArrayList<>();
        for (Map.Entry<String, Map<String, Metric>> bench : metrics.benchmarks().entrySet()) {
            for (Map.Entry<String, Metric> measure : bench.getValue().entrySet()) {
                double value = measure.getValue().value();
                List<MetricJudgement.Boundary> boundaries = new ArrayList<>();
                for (Threshold t : thresholds) {
                    ThresholdRule r = t.rule();
                    if (!r.measure().equals(measure.getKey())
                            || (r.benchmark() != null && !r.benchmark().equals(bench.getKey()))) continue;
                    Model model = Model.of(r.model()).orElseThrow();
                    List<HistoryValue> history = model == Model.CHANGE_POINT
                            ? history(report, r, bench.getKey(), measure.getKey(), start)
                            : null;
                    double[] baseline = history == null
                            ? oldestFirst(values(report, r, bench.getKey(), measure.getKey(), start, store::baseline))
                            : history.stream().mapToDouble(HistoryValue::value).toArray();
                    Limits limits = model.limits(baseline, r.lowerBoundary(), r.upperBoundary(), r.minSamples());
                    String side = limits.breached(value);
                    ChangePointWindow window = null;
                    if (model == Model.CHANGE_POINT) {
                        // A change point alerts when the value reveals a new one, not by its limits.
                        boolean limited = limits.lower() != null || limits.upper() != null;
                        ChangePointJudgement cp = limited
                                ? ChangePointJudgement.of(history, report, value, r.lowerBoundary(), r.upperBoundary())
                                : null;
                        side = cp == null || cp.revealed() == null
                                ? null
                                : cp.revealed().side();
                        window = cp == null ? null : cp.window();
                    }
                    boundaries.add(new MetricJudgement.Boundary(
                            t.id(),
                            model.wireName(),
                            limits.lower(),
                            limits.upper(),
                            limits.baselineSize(),
                            limits.mean(),
                            limits.stddev(),
                            side,
                            window));
                }
                judged.add(new MetricJudgement(bench.getKey(), measure.getKey(), value, boundaries));
            }
        }
        Optional<List<Alert>> written = store.recordJudgement(report, judged, clock.instant());
        List<Alert> alerts = written.orElse(List.of());
        if (!alerts.isEmpty()) listeners.forEach(l -> l.accept(alerts));
        return alerts;
    }

    private static boolean matchesReport(ThresholdRule r, JudgedReport report) {
        return (r.branch() == null || r.branch().equals(report.branch()))
                && r.testbed().equals(report.testbed())
                && (r.specId() == null || r.specId().equals(report.specId()));
    }

    /** The metric's history (see {@link #values}) with each value's report and commit, oldest first. */
    private List<HistoryValue> history(
            JudgedReport report, ThresholdRule r, String benchmark, String measure, Optional<StartPoint> start) {
        return values(report, r, benchmark, measure, start, store::baselineHistory)
                .reversed();
    }

    private static double[] oldestFirst(List<Double> values) {
        double[] oldestFirst = new double[values.size()];
        for (int i = 0; i < oldestFirst.length; i++) oldestFirst[i] = values.get(values.size() - 1 - i);
        return oldestFirst;
    }

    /**
     * The metric's history on the report's branch, newest first, continued with the start
     * point's branch up to the start point while the window has room.
     */
    private static <T> List<T> values(
            JudgedReport report,
            ThresholdRule r,
            String benchmark,
            String measure,
            Optional<StartPoint> start,
            java.util.function.Function<BaselineQuery, List<T>> read) {
        Instant since = r.maxDays() == null ? null : report.endTime().minus(Duration.ofDays(r.maxDays()));
        List<T> values = new ArrayList<>(read.apply(new BaselineQuery(
                report.projectId(),
                report.branch(),
                report.testbed(),
                r.specId(),
                benchmark,
                measure,
                report.endTime(),
                report.id(),
                since,
                r.maxSamples())));
        if (start.isPresent() && (r.maxSamples() == null || values.size() < r.maxSamples())) {
            StartPoint sp = start.get();
            Instant until = sp.until().isBefore(report.endTime()) ? sp.until() : report.endTime();
            values.addAll(read.apply(new BaselineQuery(
                    report.projectId(),
                    sp.startBranch(),
                    report.testbed(),
                    r.specId(),
                    benchmark,
                    measure,
                    until,
                    report.id(),
                    since,
                    r.maxSamples() == null ? null : r.maxSamples() - values.size())));
        }
        return values;
    }
}

package dev.baton.console;

import dev.baton.console.Views.JobRef;
import dev.baton.console.Views.MetricChoice;
import dev.baton.console.Views.PlotData;
import dev.baton.console.Views.PlotPoint;
import dev.baton.store.Alert;
import dev.baton.store.AlertFilter;
import dev.baton.store.HistoryQuery;
import dev.baton.store.MetricPoint;
import dev.baton.store.Project;
import dev.baton.store.Store;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A metric's history for the console's plot (docs/alerts.md, "In the console"): the judged
 * metrics of one benchmark and measure from the store, oldest first, each with the boundary it
 * was judged against, whether it raised an alert and the job that measured it. One series per
 * branch and testbed.
 */
final class MetricHistory {
    /** The most points a plot shows (the newest). */
    static final int POINTS = 500;

    private final Store store;
    private final AlertPages alerts;

    MetricHistory(Store store, AlertPages alerts) {
        this.store = store;
        this.alerts = alerts;
    }

    List<MetricChoice> choices(Project project, String benchmark, String measure) {
        return store.alerts().metricNames(project.id()).stream()
                .map(n -> new MetricChoice(
                        n.benchmark(),
                        n.measure(),
                        "/console/projects/" + project.slug().value() + "/metrics?benchmark=" + encode(n.benchmark())
                                + "&measure=" + encode(n.measure()),
                        n.benchmark().equals(benchmark) && n.measure().equals(measure)))
                .toList();
    }

    PlotData data(Project project, String benchmark, String measure, String branch, String testbed) {
        List<MetricPoint> history = store.alerts()
                .history(new HistoryQuery(project.id(), benchmark, measure, branch, testbed, null, POINTS));
        Map<String, String> alerted = new HashMap<>(); // report → side
        for (Alert a :
                store.alerts().alerts(new AlertFilter(project.id(), null, branch, benchmark, null, null, POINTS))) {
            if (a.measure().equals(measure) && (testbed == null || testbed.equals(a.testbed())))
                alerted.putIfAbsent(a.reportUuid(), a.side());
        }
        Map<String, Optional<JobRef>> jobs = new HashMap<>();
        List<PlotPoint> points = new ArrayList<>();
        for (MetricPoint p : history.reversed()) {
            Double lower = null;
            Double upper = null;
            for (MetricPoint.StoredBoundary b : p.boundaries()) {
                if (b.lowerLimit() != null) lower = lower == null ? b.lowerLimit() : Math.max(lower, b.lowerLimit());
                if (b.upperLimit() != null) upper = upper == null ? b.upperLimit() : Math.min(upper, b.upperLimit());
            }
            String job = jobs.computeIfAbsent(p.reportUuid(), r -> alerts.jobOf(project, r))
                    .map(JobRef::href)
                    .orElse(null);
            points.add(new PlotPoint(
                    p.branch() + " · " + p.testbed(),
                    p.branch(),
                    p.testbed(),
                    p.at(),
                    p.value(),
                    lower,
                    upper,
                    alerted.get(p.reportUuid()),
                    p.hash(),
                    p.reportUuid(),
                    job));
        }
        return new PlotData(benchmark, measure, points);
    }

    static String dataUrl(Project project, String benchmark, String measure, String branch, String testbed) {
        return "/console/projects/" + project.slug().value() + "/metrics/data?benchmark=" + encode(benchmark)
                + "&measure=" + encode(measure) + (branch == null ? "" : "&branch=" + encode(branch))
                + (testbed == null ? "" : "&testbed=" + encode(testbed));
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}

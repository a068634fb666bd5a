package dev.baton.console;

import dev.baton.console.Views.ComparePage;
import dev.baton.console.Views.CompareRow;
import dev.baton.console.Views.JobRef;
import dev.baton.core.adapter.Metrics;
import dev.baton.core.adapter.ReportResults;
import dev.baton.store.Job;
import dev.baton.store.JobFilter;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.Store;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A job's metrics beside those of the previous run on the same branch and testbed: the newest job
 * of the project submitted before it (a smaller id) whose report has results. Each measure's value in both and
 * the change in percent, and the alerts the thresholds raised on the run (docs/alerts.md).
 */
final class Comparison {
    /** The most earlier jobs read looking for the previous run. */
    static final int SCAN = 2_000;

    private final Store store;
    private final AlertPages alerts;

    Comparison(Store store, AlertPages alerts) {
        this.store = store;
        this.alerts = alerts;
    }

    ComparePage compare(Project project, Job job) {
        Report report = store.runs().findReport(job.reportId()).orElse(null);
        Metrics current = metrics(report);
        Optional<Job> previous = report == null ? Optional.empty() : previous(project, job, report);
        Metrics before = previous.flatMap(p -> store.runs().findReport(p.reportId()))
                .map(Comparison::metrics)
                .orElse(Metrics.EMPTY);
        JobRef ref = new JobRef(project.slug().value(), job.uuid().toString());
        return new ComparePage(
                project.slug().value(),
                project.name(),
                ref,
                previous.map(p -> new JobRef(project.slug().value(), p.uuid().toString()))
                        .orElse(null),
                report == null ? null : report.branch(),
                report == null ? null : report.testbed(),
                rows(before, current),
                report == null ? List.of() : alerts.ofReport(project, report.uuid()));
    }

    private Optional<Job> previous(Project project, Job job, Report report) {
        int read = 0;
        int batch = 200;
        while (read < SCAN) {
            List<Job> jobs = store.runs().listJobs(project.id(), new JobFilter(null, null, null, batch, read));
            for (Job j : jobs) {
                if (j.id() >= job.id()) continue; // submitted after it (ids grow with submission; times may tie)
                Optional<Report> r = store.runs().findReport(j.reportId());
                if (r.isPresent()
                        && r.get().branch().equals(report.branch())
                        && r.get().testbed().equals(report.testbed())
                        && !metrics(r.get()).isEmpty()) {
                    return Optional.of(j);
                }
            }
            read += jobs.size();
            if (jobs.size() < batch) break;
        }
        return Optional.empty();
    }

    static Metrics metrics(Report report) {
        if (report == null || report.results() == null) return Metrics.EMPTY;
        return ReportResults.fromJson(report.results())
                .map(ReportResults::results)
                .filter(m -> m != null)
                .orElse(Metrics.EMPTY);
    }

    /** Every measure of either run, in the current run's order first. */
    static List<CompareRow> rows(Metrics before, Metrics current) {
        Map<String, Double[]> values = new LinkedHashMap<>();
        current.benchmarks()
                .forEach((b, measures) -> measures.forEach((m, metric) ->
                        values.computeIfAbsent(b + "\u0000" + m, k -> new Double[2])[1] = metric.value()));
        before.benchmarks()
                .forEach((b, measures) -> measures.forEach((m, metric) ->
                        values.computeIfAbsent(b + "\u0000" + m, k -> new Double[2])[0] = metric.value()));
        List<CompareRow> rows = new ArrayList<>();
        values.forEach((key, v) -> {
            String[] names = key.split("\u0000", 2);
            Double change = v[0] == null || v[1] == null || v[0] == 0 ? null : (v[1] - v[0]) / Math.abs(v[0]) * 100;
            rows.add(new CompareRow(names[0], names[1], v[0], v[1], change));
        });
        return rows;
    }
}

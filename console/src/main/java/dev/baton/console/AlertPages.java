package dev.baton.console;

import dev.baton.console.Views.AlertRow;
import dev.baton.console.Views.AlertsPage;
import dev.baton.console.Views.GroupRow;
import dev.baton.console.Views.JobRef;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.store.Alert;
import dev.baton.store.AlertFilter;
import dev.baton.store.AlertGroupFilter;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.Store;
import dev.baton.store.Triage;
import dev.baton.web.auth.Principal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console's reads of a project's alerts (docs/alerts.md): the alerts page (active and
 * dismissed, newest first) and the alerts raised on one report (the compare page). Each alert
 * links to the job whose report raised it, when a job did (a direct run has none).
 */
final class AlertPages {
    /** Alerts shown per status on the alerts page; the API pages through the rest. */
    static final int SHOWN = 200;

    /** Alert groups shown on the alerts page, newest first. */
    static final int GROUPS_SHOWN = 50;

    private final Store store;

    AlertPages(Store store) {
        this.store = store;
    }

    AlertsPage page(Project project, Principal viewer) {
        Map<String, Optional<JobRef>> jobs = new HashMap<>();
        return new AlertsPage(
                project.slug().value(),
                project.name(),
                rows(project, Alert.ACTIVE, null, jobs),
                rows(project, Alert.DISMISSED, null, jobs),
                AlertRight.mayTriage(viewer, project),
                groups(project));
    }

    /** The newest groups, each with its triage and a summary of the metrics that moved. */
    private List<GroupRow> groups(Project project) {
        return store
                .alerts()
                .groups()
                .list(new AlertGroupFilter(project.id(), null, null, null, null, GROUPS_SHOWN))
                .stream()
                .map(g -> {
                    Triage t = g.triage();
                    String metrics = g.alerts().stream()
                            .map(a -> a.benchmark() + " " + a.measure())
                            .distinct()
                            .limit(5)
                            .collect(java.util.stream.Collectors.joining(", "));
                    if (g.alerts().size() > 5) metrics += ", …";
                    return new GroupRow(
                            g.uuid(),
                            g.branch(),
                            g.testbed(),
                            g.hash(),
                            g.previousHash(),
                            t.state(),
                            t.note(),
                            t.commit(),
                            t.by(),
                            g.alerts().size(),
                            metrics,
                            g.created());
                })
                .toList();
    }

    /** The alerts raised on one report, whatever their status. */
    List<AlertRow> ofReport(Project project, ReportUuid report) {
        return rows(project, null, report.toString(), new HashMap<>());
    }

    private List<AlertRow> rows(Project project, String status, String report, Map<String, Optional<JobRef>> jobs) {
        List<Alert> alerts =
                store.alerts().alerts(new AlertFilter(project.id(), status, null, null, report, null, SHOWN));
        return alerts.stream()
                .map(a -> new AlertRow(
                        a.uuid(),
                        a.branch(),
                        a.testbed(),
                        a.hash(),
                        a.benchmark(),
                        a.measure(),
                        a.thresholdUuid(),
                        a.model(),
                        a.side(),
                        a.value(),
                        a.limit(),
                        a.baselineSize(),
                        a.baselineMean(),
                        a.baselineStddev(),
                        a.status(),
                        a.created(),
                        jobs.computeIfAbsent(a.reportUuid(), r -> jobOf(project, r))
                                .orElse(null),
                        a.reportUuid()))
                .toList();
    }

    /** The job whose report this is; empty for a direct run's report. */
    Optional<JobRef> jobOf(Project project, String reportUuid) {
        Optional<Report> report;
        try {
            report = store.runs().findReport(ReportUuid.parse(reportUuid));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return report.flatMap(r -> store.runs().findJobOfReport(r.id()))
                .map(j -> new JobRef(project.slug().value(), j.uuid().toString()));
    }
}

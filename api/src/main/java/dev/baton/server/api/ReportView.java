package dev.baton.server.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.server.adapter.IterationResults;
import dev.baton.server.adapter.Metrics;
import dev.baton.server.adapter.ReportResults;
import dev.baton.server.store.Report;
import java.time.Instant;
import java.util.List;

/**
 * A report. {@code results} (the merged Bencher Metric Format) and {@code iterations} (each
 * iteration's own results or error, from 0) are absent until the adapter ran; {@code error} says
 * why the output did not parse; {@code job} is the runner run's job, null for a direct run.
 * {@code judged}, {@code metrics} (each judged metric with its boundaries) and {@code alerts}
 * say what the project's thresholds made of it (docs/alerts.md); absent where not asked for.
 */
public record ReportView(
        ReportUuid uuid,
        ProjectUuid project,
        String branch,
        String testbed,
        String adapter,
        String resultsFile,
        Instant startTime,
        Instant endTime,
        Metrics results,
        List<IterationResults> iterations,
        @JsonInclude(JsonInclude.Include.ALWAYS) String error,
        @JsonInclude(JsonInclude.Include.ALWAYS) JobView job,
        Instant created,
        Instant modified,
        Boolean judged,
        List<MetricView> metrics,
        List<AlertView> alerts) {

    static ReportView of(Report r, ProjectUuid project, JobView job) {
        ReportResults parsed = ReportResults.fromJson(r.results()).orElse(null);
        return new ReportView(
                r.uuid(),
                project,
                r.branch(),
                r.testbed(),
                r.adapter(),
                r.resultsFile(),
                r.startTime(),
                r.endTime(),
                parsed == null ? null : parsed.results(),
                parsed == null ? null : parsed.iterations(),
                r.error(),
                job,
                r.created(),
                r.modified(),
                null,
                null,
                null);
    }

    /** This view with what judging made of the report: nothing yet ({@code judged} false), or its metrics' boundaries and its alerts. */
    ReportView withJudgement(boolean judged, List<MetricView> metrics, List<AlertView> alerts) {
        return new ReportView(
                uuid,
                project,
                branch,
                testbed,
                adapter,
                resultsFile,
                startTime,
                endTime,
                results,
                iterations,
                error,
                job,
                created,
                modified,
                judged,
                metrics,
                alerts);
    }
}

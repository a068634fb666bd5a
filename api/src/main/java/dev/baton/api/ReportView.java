package dev.baton.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.alerts.PairedVerdict;
import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.Metrics;
import dev.baton.core.adapter.ReportResults;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.store.Report;
import java.time.Instant;
import java.util.List;

/**
 * A report. {@code results} (the merged Bencher Metric Format) and {@code iterations} (each
 * iteration's own results or error, from 0) are absent until the adapter ran; {@code error} says
 * why the output did not parse; {@code job} is the runner run's job, null for a direct run.
 * {@code judged}, {@code metrics} (each judged metric with its boundaries) and {@code alerts}
 * say what the project's thresholds made of it (docs/alerts.md); absent where not asked for.
 * {@code paired} is a paired run's pairs and verdict (issue 45, {@link PairedVerdict}), computed
 * from the stored iterations and the job's pair order; absent on other reports.
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
        List<AlertView> alerts,
        PairedVerdict paired) {

    static ReportView of(Report r, ProjectUuid project, JobView job) {
        ReportResults parsed = ReportResults.fromJson(r.results()).orElse(null);
        PairedConfig pairedConfig =
                job == null || job.config() == null ? null : job.config().paired();
        PairedVerdict paired =
                pairedConfig == null || parsed == null ? null : PairedVerdict.of(pairedConfig, parsed.iterations());
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
                null,
                paired);
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
                alerts,
                paired);
    }
}

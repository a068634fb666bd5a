package dev.baton.api;

import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.store.FailureKind;
import dev.baton.store.Job;
import dev.baton.store.JobLabels;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.ReportReview;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import java.util.List;

/**
 * The {@code POST /v0/run} body that submits a job again ({@code POST /v0/projects/{p}/jobs/{j}/rerun},
 * {@code baton jobs rerun}): project, branch, testbed, adapter and results file from its report;
 * image by digest (a moved tag does not change what runs), spec, command, environment, files,
 * iterations (or a paired run's baseline and pairs), timeouts, labels and retry policy from the job; its pull or merge request, so a rerun updates the same sticky comment (docs/pull-requests.md). It is validated as any run is, so a
 * spec or image deleted since is refused the same way. The console's Re-run builds the same body.
 */
final class RerunRequest {
    private RerunRequest() {}

    static RunRequest of(
            Project project,
            Job job,
            Report report,
            Spec spec,
            RetryPolicy retry,
            JobLabels labels,
            ReportReview review) {
        JobConfig c = job.config();
        RunRequest.Retry retryBody = retry == null || retry.maxAttempts() <= 1
                ? null
                : new RunRequest.Retry(
                        retry.maxAttempts(),
                        retry.backoffSeconds(),
                        null,
                        retry.on().stream().map(FailureKind::wireName).toList(),
                        List.copyOf(retry.finalExitCodes()));
        String image = c.digest() == null ? null : c.digest().toString();
        PairedConfig p = c.paired(); // a paired run reruns paired, with a new pair order
        RunRequest.Baseline baseline = p == null
                ? null
                : new RunRequest.Baseline(
                        p.baselineImage() == null ? null : p.baselineImage().toString(), p.baselineCmd());
        return new RunRequest(
                project.slug().value(),
                image,
                spec.slug().value(),
                null,
                null,
                null,
                report.branch(),
                report.testbed(),
                report.adapter(),
                report.resultsFile(),
                job.timeout(),
                c.entrypoint(),
                c.cmd(),
                c.env() == null || c.env().isEmpty() ? null : c.env(),
                c.filePaths() == null || c.filePaths().isEmpty() ? null : c.filePaths(),
                c.iterations(),
                retryBody,
                job.queueTimeout(),
                labels.required().isEmpty() ? null : labels.required(),
                labels.preferred().isEmpty() ? null : labels.preferred(),
                null,
                null,
                null,
                baseline,
                p == null ? null : p.pairs(),
                p == null ? null : p.untilSignificant(),
                p == null ? null : p.budget(),
                p == null ? null : p.minEffect(),
                review.githubPr(),
                review.gitlabMr());
    }
}

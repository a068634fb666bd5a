package dev.baton.console;

import dev.baton.protocol.model.JobConfig;
import dev.baton.store.FailureKind;
import dev.baton.store.Job;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The body of {@code POST /v0/run} that submits a job again with the same configuration: project,
 * branch, testbed, adapter and results file from its report; image (by digest, so a moved tag does
 * not change what runs), spec, command, environment, files, iterations and timeouts from the job.
 * The retry policy is kept too (issue 41), as {@code POST /v0/projects/{p}/jobs/{j}/rerun} keeps it.
 */
final class Rerun {
    private Rerun() {}

    static Map<String, Object> body(Project project, Job job, Report report, Spec spec, RetryPolicy retry) {
        JobConfig c = job.config();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("project", project.slug().value());
        body.put("branch", report.branch());
        body.put("testbed", report.testbed());
        body.put("adapter", report.adapter());
        if (report.resultsFile() != null) body.put("results_file", report.resultsFile());
        if (c.digest() != null) body.put("image", c.digest().toString());
        body.put("spec", spec.slug().value());
        if (c.entrypoint() != null) body.put("entrypoint", c.entrypoint());
        if (c.cmd() != null) body.put("cmd", c.cmd());
        if (c.env() != null && !c.env().isEmpty()) body.put("env", c.env());
        if (c.filePaths() != null && !c.filePaths().isEmpty()) body.put("file_paths", c.filePaths());
        if (c.iterations() != null) body.put("iterations", c.iterations());
        body.put("timeout", job.timeout());
        if (job.queueTimeout() != null) body.put("queue_timeout", job.queueTimeout());
        if (retry != null && retry.maxAttempts() > 1) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("max_attempts", retry.maxAttempts());
            r.put("backoff_seconds", retry.backoffSeconds());
            r.put("on", retry.on().stream().map(FailureKind::wireName).toList());
            if (!retry.finalExitCodes().isEmpty()) r.put("final_exit_codes", List.copyOf(retry.finalExitCodes()));
            body.put("retry", r);
        }
        return body;
    }
}

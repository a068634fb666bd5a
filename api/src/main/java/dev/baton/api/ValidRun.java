package dev.baton.api;

import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.store.Project;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A {@code POST /v0/run} body that passed every rule: one of the two modes of seed 001's table. */
sealed interface ValidRun {
    Project project();

    String branch();

    String testbed();

    String adapter();

    /** Results given by the caller, parsed by the adapter at once ({@code results}: ReportResults JSON); no job. */
    record Direct(
            Project project,
            String branch,
            String testbed,
            String adapter,
            Instant startTime,
            Instant endTime,
            String results)
            implements ValidRun {}

    /**
     * An image (a digest, resolved from a tag at submit) or, with a null image, a command for a
     * trusted runner's process executor, for a runner of {@code spec} to execute.
     */
    record OnRunner(
            Project project,
            String branch,
            String testbed,
            String adapter,
            String resultsFile,
            Spec spec,
            ImageDigest image,
            JobTimeout timeout,
            List<String> entrypoint,
            List<String> cmd,
            Map<String, String> env,
            List<String> filePaths,
            int iterations,
            RetryPolicy retry,
            Integer queueTimeout,
            dev.baton.store.JobLabels labels,
            dev.baton.protocol.model.PairedConfig paired)
            implements ValidRun {}
}

package dev.baton.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * The body of {@code POST /v0/run} as sent, before validation (see {@link RunValidator}).
 * {@code results} holds one output per iteration for the adapter: a JSON object, or a string.
 */
record RunRequest(
        String project,
        String image,
        String spec,
        List<JsonNode> results,
        String startTime,
        String endTime,
        String branch,
        String testbed,
        String adapter,
        String resultsFile,
        Integer timeout,
        List<String> entrypoint,
        List<String> cmd,
        Map<String, String> env,
        List<String> filePaths,
        Integer iterations,
        Retry retry,
        Integer queueTimeout,
        Map<String, String> requireLabels,
        Map<String, String> preferLabels,
        String hash,
        String startPoint,
        String startPointHash,
        Baseline baseline,
        Integer pairs,
        Boolean untilSignificant,
        Integer budget,
        Double minEffect,
        Integer githubPr,
        Integer gitlabMr) {

    /** The same body without a paired run's fields (every run before issue 45). */
    RunRequest(
            String project,
            String image,
            String spec,
            List<JsonNode> results,
            String startTime,
            String endTime,
            String branch,
            String testbed,
            String adapter,
            String resultsFile,
            Integer timeout,
            List<String> entrypoint,
            List<String> cmd,
            Map<String, String> env,
            List<String> filePaths,
            Integer iterations,
            Retry retry,
            Integer queueTimeout,
            Map<String, String> requireLabels,
            Map<String, String> preferLabels,
            String hash,
            String startPoint,
            String startPointHash) {
        this(
                project,
                image,
                spec,
                results,
                startTime,
                endTime,
                branch,
                testbed,
                adapter,
                resultsFile,
                timeout,
                entrypoint,
                cmd,
                env,
                filePaths,
                iterations,
                retry,
                queueTimeout,
                requireLabels,
                preferLabels,
                hash,
                startPoint,
                startPointHash,
                null,
                null,
                null,
                null,
                null,
                null,
                null);
    }

    /**
     * A paired run's baseline (issue 45), side A; the run's own is side B: a command in the run's
     * image, an image of its own (a digest or tag of the project's registry) with its own command
     * or with {@code cmd} in place of it, or both. At least one is given.
     */
    record Baseline(String image, List<String> cmd) {}

    /**
     * Opt-in retry of a job that started and then failed (brief §1, OJS field names): {@code on}
     * the kinds of failure retried and {@code finalExitCodes} the exit codes never retried (issue
     * 41); {@code retryWhenRunnerLost} is the older form, mapped onto {@code on} (docs/api.md).
     */
    record Retry(
            Integer maxAttempts,
            Integer backoffSeconds,
            Boolean retryWhenRunnerLost,
            List<String> on,
            List<Integer> finalExitCodes) {}
}

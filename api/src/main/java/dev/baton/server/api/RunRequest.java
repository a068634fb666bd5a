package dev.baton.server.api;

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
        String startPointHash) {

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

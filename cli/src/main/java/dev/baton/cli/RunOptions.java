package dev.baton.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What a run is, as options: the body of {@code POST /v0/run}. Shared by {@code baton run} and
 * {@code baton schedules create} (a schedule submits the same body on its occurrences).
 */
final class RunOptions {
    @Option(names = "--project", required = true, description = "project UUID or slug")
    String project;

    @Option(
            names = "--image",
            description =
                    "image digest sha256:… or a tag of the project's repository (optional for process-executor runners)")
    String image;

    @Option(names = "--spec", description = "spec UUID or slug")
    String specRef;

    @Option(
            names = "--timeout",
            description = "the job's own time limit in seconds (default 3600); see --wait-timeout for how long to wait")
    Integer timeout;

    @Option(names = "--iterations", description = "1-100 (default 1)")
    Integer iterations;

    @Option(
            names = "--baseline",
            paramLabel = "COMMAND",
            description = "a paired run (issue 45): the baseline command, one string split as a shell splits words;"
                    + " it and the run's command (the candidate) run alternately on one runner (process, runc and microVM executors;"
                    + " with --image, in that image, or with --baseline-image in that one)")
    String baseline;

    @Option(
            names = "--baseline-image",
            paramLabel = "REF",
            description =
                    "a paired run whose baseline runs in another image (a digest or tag of the project's registry,"
                            + " as --image): with its own command, or with --baseline's in place of its cmd; runc and microvm runners only")
    String baselineImage;

    @Option(
            names = "--pairs",
            description =
                    "with --baseline or --baseline-image: how many pairs, 2-200 (default 10; with --until-significant the most)")
    Integer pairs;

    @Option(
            names = "--until-significant",
            description =
                    "with --baseline or --baseline-image: add pairs until every metric is decided, or --budget or --pairs runs out")
    boolean untilSignificant;

    @Option(
            names = "--budget",
            converter = dev.baton.cli.runner.UpCommand.DurationConverter.class,
            description = "with --until-significant: stop adding pairs after this long (e.g. 10m)")
    java.time.Duration budget;

    @Option(
            names = "--min-effect",
            paramLabel = "P",
            description = "with --until-significant: a smaller change counts as none, e.g. 2% or 0.02 (default 1%)")
    String minEffect;

    @Option(names = "--entrypoint", description = "entrypoint override; repeat for each word")
    List<String> entrypoint;

    @Option(names = "--env", description = "NAME=VALUE; repeatable")
    Map<String, String> env;

    @Option(names = "--file-path", description = "file to collect after the run; repeatable")
    List<String> filePaths;

    @Option(
            names = "--require-label",
            description = "KEY=VALUE a runner must have to take the job; repeatable (all must match)")
    Map<String, String> requireLabels;

    @Option(names = "--prefer-label", description = "KEY=VALUE a runner that has it takes the job first; repeatable")
    Map<String, String> preferLabels;

    @Option(names = "--branch")
    String branch;

    @Option(names = "--testbed")
    String testbed;

    @Option(names = "--hash", description = "the git commit the run measures")
    String hash;

    @Option(
            names = "--start-point",
            description = "the branch this branch started from: its history judges the branch's first runs")
    String startPoint;

    @Option(
            names = "--start-point-hash",
            description = "with --start-point: that branch's history up to its report of this commit")
    String startPointHash;

    @Option(
            names = "--github-pr",
            paramLabel = "N",
            description = "the GitHub pull request the run belongs to: a check run and one sticky comment"
                    + " (default: from GITHUB_REF on a pull_request event)")
    Integer githubPr;

    @Option(
            names = "--gitlab-mr",
            paramLabel = "IID",
            description = "the GitLab merge request the run belongs to: a commit status and one sticky note"
                    + " (default: CI_MERGE_REQUEST_IID)")
    Integer gitlabMr;

    @Option(names = "--adapter", description = "how output becomes metrics (default json)")
    String adapter;

    @Option(
            names = "--retry",
            description =
                    "retry a started job that failed: at most this many attempts in all, 1-10 (default 1: no retry)")
    Integer retry;

    @Option(names = "--retry-backoff", description = "with --retry: seconds before each retry, 0-3600 (default 0)")
    Integer retryBackoff;

    @Option(
            names = "--retry-on",
            split = ",",
            description =
                    "with --retry: which failures retry, from runner_lost,infrastructure,failure (default infrastructure,failure)")
    List<String> retryOn;

    @Option(
            names = "--final-exit-codes",
            split = ",",
            description = "with --retry: exit codes that are never retried, e.g. 1,2")
    List<Integer> finalExitCodes;

    @Option(names = "--results", description = "BMF JSON file (direct mode); repeatable")
    List<Path> results;

    @Option(names = "--start-time", description = "ISO-8601 (direct mode)")
    String startTime;

    @Option(names = "--end-time", description = "ISO-8601 (direct mode)")
    String endTime;

    @Parameters(paramLabel = "CMD", description = "command for the job (after --)")
    List<String> cmd;

    /** The {@code POST /v0/run} body these options describe. */
    Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("project", project);
        put(body, "image", image);
        put(body, "spec", specRef);
        put(body, "timeout", timeout);
        put(body, "iterations", iterations);
        put(body, "entrypoint", entrypoint);
        put(body, "cmd", cmd);
        put(body, "env", env == null ? null : new HashMap<>(env));
        put(body, "file_paths", filePaths);
        put(body, "require_labels", requireLabels == null ? null : new HashMap<>(requireLabels));
        put(body, "prefer_labels", preferLabels == null ? null : new HashMap<>(preferLabels));
        put(body, "branch", branch);
        put(body, "testbed", testbed);
        put(body, "hash", hash);
        put(body, "start_point", startPoint);
        put(body, "start_point_hash", startPointHash);
        put(body, "github_pr", githubPr);
        put(body, "gitlab_mr", gitlabMr);
        put(body, "adapter", adapter);
        put(body, "start_time", startTime);
        put(body, "end_time", endTime);
        put(body, "retry", retry());
        put(body, "baseline", baselineBody());
        put(body, "pairs", pairs);
        if (untilSignificant) body.put("until_significant", true);
        if (budget != null) body.put("budget", Math.max(1, budget.toSeconds()));
        if (minEffect != null) body.put("min_effect", fraction(minEffect));
        if (results != null) {
            List<String> docs = new ArrayList<>();
            for (Path p : results) {
                try {
                    docs.add(Files.readString(p));
                } catch (IOException e) {
                    throw new ClientException("cannot read " + p + ": " + e.getMessage());
                }
            }
            body.put("results", docs);
        }
        return body;
    }

    /** The paired run's baseline (issue 45): {@code image}, {@code cmd} or both; null when not paired. */
    private Map<String, Object> baselineBody() {
        if (baseline == null && baselineImage == null) return null;
        Map<String, Object> b = new LinkedHashMap<>();
        put(b, "image", baselineImage);
        put(b, "cmd", baseline == null ? null : Words.split(baseline));
        return b;
    }

    /** The retry object (issue 41), or null when no retry option was given; the server checks the values. */
    private Map<String, Object> retry() {
        if (retry == null && retryBackoff == null && retryOn == null && finalExitCodes == null) return null;
        Map<String, Object> r = new LinkedHashMap<>();
        put(r, "max_attempts", retry);
        put(r, "backoff_seconds", retryBackoff);
        put(r, "on", retryOn);
        put(r, "final_exit_codes", finalExitCodes);
        return r;
    }

    /** {@code 2%} or {@code 0.02}; the server checks the range. */
    private static double fraction(String text) {
        String t = text.strip();
        try {
            if (t.endsWith("%"))
                return Double.parseDouble(t.substring(0, t.length() - 1).strip()) / 100;
            return Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new ClientException("--min-effect takes a fraction (0.02) or a percentage (2%), got '" + text + "'");
        }
    }

    private static void put(Map<String, Object> body, String key, Object value) {
        if (value != null) body.put(key, value);
    }
}

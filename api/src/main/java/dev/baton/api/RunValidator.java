package dev.baton.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.adapter.Adapter;
import dev.baton.core.adapter.Adapters;
import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.ReportResults;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.model.CapabilityLabels;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.protocol.value.QueueTimeout;
import dev.baton.registry.Images;
import dev.baton.store.FailureKind;
import dev.baton.store.Project;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.web.http.ApiException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The rules of {@code POST /v0/run}. First the mode, exactly as seed 001's table says (image and
 * spec: runner; results alone: direct; anything else a 400 naming what is missing or extra),
 * then every field against its bound. Only reads the store, so a rejected run writes nothing.
 */
final class RunValidator {
    static final int MAX_ARGS = 256;
    static final int MAX_ARG_LENGTH = 4096;
    static final int MAX_ENV = 256;
    static final int MAX_ENV_VALUE_LENGTH = 32 * 1024;
    static final int MAX_FILE_PATHS = 64;
    static final int MAX_FILE_PATH_LENGTH = 1024;
    static final int MIN_ITERATIONS = 1;
    static final int MAX_ITERATIONS = 100;
    static final int MAX_RESULTS = 256;
    /**
     * Benchmarks in one direct run's merged results: a direct run is judged as it is stored, so
     * its answer waits for one baseline read per benchmark and measure (issue 44).
     */
    static final int MAX_BENCHMARKS = 10_000;

    static final int MAX_LABEL_LENGTH = 256;
    static final int MAX_RETRY_ATTEMPTS = 10;
    static final int MAX_RETRY_BACKOFF_SECONDS = 3600;
    static final int MAX_FINAL_EXIT_CODES = 32;
    private static final String RETRY_ON_NAMES = "runner_lost, infrastructure, failure";
    static final String DEFAULT_BRANCH = "main";
    static final String DEFAULT_TESTBED = "localhost";
    static final String DEFAULT_ADAPTER = Adapters.DEFAULT;

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,255}");
    private static final Pattern ADAPTER = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    private final Store store;
    private final KnownProjects projects;
    private final Images images;
    private final Adapters adapters;
    private final PairedRuns pairedRuns;

    RunValidator(Store store, KnownProjects projects, Images images, Adapters adapters) {
        this.store = store;
        this.projects = projects;
        this.images = images;
        this.adapters = adapters;
        this.pairedRuns = new PairedRuns(images);
    }

    ValidRun validate(RunRequest r) {
        boolean image = r.image() != null;
        boolean spec = r.spec() != null;
        boolean results = r.results() != null && !r.results().isEmpty();
        // A command without an image is a run for a trusted runner's process executor.
        boolean command = r.cmd() != null || r.entrypoint() != null;
        if (image && !spec)
            throw new ApiException(
                    400,
                    "spec_required",
                    "spec required for runner execution: give the spec (UUID or slug) that should run the image",
                    "spec");
        if (!image && spec && (results || !command)) {
            throw new ApiException(
                    400,
                    "image_required",
                    "image required for runner execution: give the image (digest sha256:… or a tag"
                            + " of the project's registry) to run on the spec, or a cmd for a trusted runner's process executor",
                    "image");
        }
        if (image && results)
            throw new ApiException(
                    400,
                    "results_with_image",
                    "cannot provide both results and image: results are for direct runs, image and spec for runner runs",
                    "results");
        if (!image && !spec && !results)
            throw new ApiException(
                    400,
                    "results_required",
                    "nothing to run: give results (direct run) or image and spec (runner run)",
                    "results");

        String branch = label("branch", r.branch(), DEFAULT_BRANCH);
        String testbed = label("testbed", r.testbed(), DEFAULT_TESTBED);
        Adapter adapter = adapter(r.adapter());
        return spec ? onRunner(r, branch, testbed, adapter) : direct(r, branch, testbed, adapter);
    }

    private ValidRun direct(RunRequest r, String branch, String testbed, Adapter adapter) {
        rejectInDirectRun("timeout", r.timeout());
        rejectInDirectRun("entrypoint", r.entrypoint());
        rejectInDirectRun("cmd", r.cmd());
        rejectInDirectRun("env", r.env());
        rejectInDirectRun("file_paths", r.filePaths());
        rejectInDirectRun("iterations", r.iterations());
        rejectInDirectRun("baseline", r.baseline());
        rejectInDirectRun("pairs", r.pairs());
        rejectInDirectRun("until_significant", r.untilSignificant());
        rejectInDirectRun("budget", r.budget());
        rejectInDirectRun("min_effect", r.minEffect());
        rejectInDirectRun("retry", r.retry());
        rejectInDirectRun("results_file", r.resultsFile());
        rejectInDirectRun("queue_timeout", r.queueTimeout());
        rejectInDirectRun("require_labels", r.requireLabels());
        rejectInDirectRun("prefer_labels", r.preferLabels());
        Instant start = time("start_time", Fields.require("start_time", r.startTime()));
        Instant end = time("end_time", Fields.require("end_time", r.endTime()));
        if (end.isBefore(start)) throw ApiException.invalidField("end_time", "end_time must not be before start_time");
        String results = results(r.results(), adapter);
        Project project = project(r.project());
        return new ValidRun.Direct(project, branch, testbed, adapter.name(), start, end, results);
    }

    private ValidRun onRunner(RunRequest r, String branch, String testbed, Adapter adapter) {
        if (r.startTime() != null) throw timeSetByServer("start_time");
        if (r.endTime() != null) throw timeSetByServer("end_time");
        if (r.image() != null && !Images.isReference(r.image())) {
            throw ApiException.invalidField(
                    "image",
                    "image must be a digest (sha256: and 64 lowercase hex digits) or a tag of the"
                            + " project's registry ('v1', or 'path:v1' for a repository inside the project), got '"
                            + r.image() + "'");
        }
        JobTimeout timeout =
                r.timeout() == null ? JobTimeout.DEFAULT : Fields.parse("timeout", r.timeout(), JobTimeout::of);
        List<String> entrypoint = args("entrypoint", r.entrypoint());
        List<String> cmd = args("cmd", r.cmd());
        Map<String, String> env = env(r.env());
        List<String> filePaths = filePaths(r.filePaths());
        String resultsFile = resultsFile(r.resultsFile(), filePaths);
        int iterations = iterations(r.iterations());
        PairedConfig paired = pairedRuns.paired(r, adapter, resultsFile);
        RetryPolicy retry = retry(r.retry());
        Integer queueTimeout = r.queueTimeout() == null
                ? null
                : Fields.parse("queue_timeout", r.queueTimeout(), QueueTimeout::of)
                        .seconds();
        var labels = new dev.baton.store.JobLabels(
                Fields.parse("require_labels", r.requireLabels(), dev.baton.protocol.value.Labels::of),
                Fields.parse("prefer_labels", r.preferLabels(), dev.baton.protocol.value.Labels::of));
        Project project = project(r.project());
        Spec spec = spec(r.spec());
        // Refuse what can never run (nothing is created): an image the project's registry does not
        // hold, and a job with nothing to execute.
        ImageDigest digest = null;
        if (r.image() != null) {
            Images.Resolved image = images.find(project.uuid(), r.image())
                    .orElseThrow(() -> new ApiException(
                            422,
                            "image_not_found",
                            "image '" + r.image() + "' is not in the registry of project '" + project.slug()
                                    + "': push it first" + " (baton image push) and give its digest or tag",
                            "image"));
            digest = ImageDigest.of(image.digest());
            boolean jobCommand = (entrypoint != null && !entrypoint.isEmpty()) || (cmd != null && !cmd.isEmpty());
            if (image.commandKnown() && !image.hasCommand() && !jobCommand) {
                throw new ApiException(
                        422,
                        "no_command",
                        "image '" + r.image() + "' names no Entrypoint or Cmd in its config and the"
                                + " run gives no cmd: give cmd (or entrypoint) so the runner knows what to execute",
                        "cmd");
            }
        } else if ((entrypoint == null || entrypoint.isEmpty()) && (cmd == null || cmd.isEmpty())) {
            throw new ApiException(
                    422,
                    "no_command",
                    "a run without an image needs a non-empty cmd (or entrypoint) to execute",
                    "cmd");
        }
        paired = pairedRuns.withBaselineImage(paired, r.baseline(), project, entrypoint);
        // Only a runner that runs a baseline image may take such a job (decision 0076).
        if (paired != null && paired.baselineImage() != null)
            labels = new dev.baton.store.JobLabels(
                    CapabilityLabels.required(labels.required(), true), labels.preferred());
        if (queueTimeout == null) queueTimeout = spec.queueTimeout();
        return new ValidRun.OnRunner(
                project,
                branch,
                testbed,
                adapter.name(),
                resultsFile,
                spec,
                digest,
                timeout,
                entrypoint,
                cmd,
                env,
                filePaths,
                iterations,
                retry,
                queueTimeout,
                labels,
                paired);
    }

    private Project project(String ref) {
        Fields.resourceId("project", Fields.require("project", ref));
        return projects.find(ResourceId.of(ref))
                .orElseThrow(() -> new ApiException(404, "project_not_found", "no project '" + ref + "'", "project"));
    }

    private Spec spec(String ref) {
        Fields.resourceId("spec", ref);
        Spec spec = store.specs()
                .findSpec(ResourceId.of(ref))
                .orElseThrow(() -> new ApiException(404, "spec_not_found", "no spec '" + ref + "'", "spec"));
        if (spec.archived() != null)
            throw new ApiException(
                    422, "spec_archived", "spec '" + spec.slug() + "' is archived and takes no new jobs", "spec");
        return spec;
    }

    private static void rejectInDirectRun(String field, Object value) {
        if (value != null) {
            throw new ApiException(
                    400,
                    "runner_field_in_direct_run",
                    field + " applies only to runner runs (image and spec); this run gives results",
                    field);
        }
    }

    private static ApiException timeSetByServer(String field) {
        return new ApiException(
                400,
                "time_in_runner_run",
                field + " is set by the server for runner runs (from when the job really starts and ends)",
                field);
    }

    static String label(String field, String raw, String fallback) {
        if (raw == null) return fallback;
        if (raw.isBlank() || raw.length() > MAX_LABEL_LENGTH || raw.chars().anyMatch(Character::isISOControl)) {
            throw ApiException.invalidField(
                    field, field + " must be 1-" + MAX_LABEL_LENGTH + " characters without control characters");
        }
        return raw;
    }

    private Adapter adapter(String raw) {
        String name = raw == null ? DEFAULT_ADAPTER : raw;
        if (!ADAPTER.matcher(name).matches())
            throw ApiException.invalidField("adapter", "adapter must be a lowercase name like 'json'");
        return adapters.find(name)
                .orElseThrow(() -> ApiException.invalidField(
                        "adapter", "unknown adapter '" + name + "'; one of " + String.join(", ", adapters.names())));
    }

    /** The collected file the adapter reads instead of stdout: it must be one the runner collects. */
    private static String resultsFile(String raw, List<String> filePaths) {
        if (raw == null) return null;
        if (filePaths == null || !filePaths.contains(raw)) {
            throw ApiException.invalidField(
                    "results_file", "results_file must be one of file_paths, so the runner collects it");
        }
        return raw;
    }

    private static Instant time(String field, String raw) {
        try {
            return OffsetDateTime.parse(raw).toInstant();
        } catch (DateTimeParseException e) {
            throw ApiException.invalidField(
                    field, field + " must be an ISO-8601 date-time with offset, e.g. 2024-05-01T12:00:00Z");
        }
    }

    /**
     * Direct mode goes through the same adapter as a runner's output: each entry is one
     * iteration's output (a JSON object is given to the adapter as its JSON text). An entry the
     * adapter cannot parse refuses the run, naming the entry, and nothing is stored.
     */
    private static String results(List<JsonNode> raw, Adapter adapter) {
        if (raw.size() > MAX_RESULTS)
            throw ApiException.invalidField("results", "at most " + MAX_RESULTS + " results per run");
        List<IterationResults> iterations = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            JsonNode node = raw.get(i);
            String field = "results[" + i + "]";
            if (node == null || !(node.isTextual() || node.isObject())) {
                throw ApiException.invalidField(
                        field, field + " must be a JSON object or a string (one iteration's output)");
            }
            IterationResults parsed =
                    IterationResults.parse(i, adapter, node.isTextual() ? node.textValue() : node.toString());
            if (!parsed.parsed())
                throw ApiException.invalidField(field, field + ": adapter " + adapter.name() + ": " + parsed.error());
            iterations.add(parsed);
        }
        ReportResults report = ReportResults.of(iterations);
        int benchmarks = report.results().benchmarks().size();
        if (benchmarks > MAX_BENCHMARKS) {
            throw new ApiException(
                    400,
                    "too_many_benchmarks",
                    "a direct run has at most " + MAX_BENCHMARKS + " benchmarks; these results have " + benchmarks
                            + ": split them into several runs",
                    "results");
        }
        return report.toJson();
    }

    static List<String> args(String field, List<String> raw) {
        if (raw == null) return null;
        if (raw.size() > MAX_ARGS)
            throw ApiException.invalidField(field, field + " has at most " + MAX_ARGS + " entries");
        for (int i = 0; i < raw.size(); i++) {
            String arg = raw.get(i);
            if (arg == null) throw ApiException.invalidField(field + "[" + i + "]", field + " entries must be strings");
            if (arg.length() > MAX_ARG_LENGTH)
                throw ApiException.invalidField(
                        field + "[" + i + "]", field + " entries are at most " + MAX_ARG_LENGTH + " characters");
            if (arg.indexOf('\0') >= 0)
                throw ApiException.invalidField(field + "[" + i + "]", field + " entries must not contain NUL");
        }
        return List.copyOf(raw);
    }

    private static Map<String, String> env(Map<String, String> raw) {
        if (raw == null) return null;
        if (raw.size() > MAX_ENV) throw ApiException.invalidField("env", "env has at most " + MAX_ENV + " variables");
        Map<String, String> env = new LinkedHashMap<>();
        for (var e : raw.entrySet()) {
            String field = "env." + e.getKey();
            if (!ENV_NAME.matcher(e.getKey()).matches()) {
                throw ApiException.invalidField(
                        field,
                        "env names are letters, digits and '_', not starting with a digit, at most 256 characters");
            }
            String value = e.getValue();
            if (value == null) throw ApiException.invalidField(field, "env values must be strings");
            if (value.length() > MAX_ENV_VALUE_LENGTH)
                throw ApiException.invalidField(
                        field, "env values are at most " + MAX_ENV_VALUE_LENGTH + " characters");
            if (value.indexOf('\0') >= 0) throw ApiException.invalidField(field, "env values must not contain NUL");
            env.put(e.getKey(), value);
        }
        return env;
    }

    /**
     * Paths the runner reads back from the job's filesystem after it ran. Absolute paths are
     * taken inside the job's root filesystem, relative ones from its working directory; a ".."
     * segment is refused outright so no path can climb out of either.
     */
    private static List<String> filePaths(List<String> raw) {
        if (raw == null) return null;
        if (raw.size() > MAX_FILE_PATHS)
            throw ApiException.invalidField("file_paths", "file_paths has at most " + MAX_FILE_PATHS + " entries");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < raw.size(); i++) {
            String path = raw.get(i);
            String field = "file_paths[" + i + "]";
            if (path == null || path.isEmpty()) throw ApiException.invalidField(field, "file paths must not be empty");
            if (path.length() > MAX_FILE_PATH_LENGTH)
                throw ApiException.invalidField(
                        field, "file paths are at most " + MAX_FILE_PATH_LENGTH + " characters");
            if (path.indexOf('\0') >= 0 || path.indexOf('\\') >= 0)
                throw ApiException.invalidField(field, "file paths must not contain NUL or backslashes");
            for (String segment : path.split("/", -1)) {
                if (segment.equals("..")) throw ApiException.invalidField(field, "file paths must not contain '..'");
            }
            if (path.endsWith("/")) throw ApiException.invalidField(field, "file paths name files, not directories");
            if (!seen.add(path)) throw ApiException.invalidField(field, "file path '" + path + "' is listed twice");
        }
        return List.copyOf(raw);
    }

    private static int iterations(Integer raw) {
        if (raw == null) return 1;
        if (raw < MIN_ITERATIONS || raw > MAX_ITERATIONS) {
            throw ApiException.invalidField(
                    "iterations",
                    "iterations must be between " + MIN_ITERATIONS + " and " + MAX_ITERATIONS + ", got " + raw);
        }
        return raw;
    }

    private static RetryPolicy retry(RunRequest.Retry raw) {
        if (raw == null) return RetryPolicy.NONE;
        int attempts = raw.maxAttempts() == null ? 1 : raw.maxAttempts();
        if (attempts < 1 || attempts > MAX_RETRY_ATTEMPTS) {
            throw ApiException.invalidField(
                    "retry.max_attempts", "retry.max_attempts must be between 1 and " + MAX_RETRY_ATTEMPTS);
        }
        int backoff = raw.backoffSeconds() == null ? 0 : raw.backoffSeconds();
        if (backoff < 0 || backoff > MAX_RETRY_BACKOFF_SECONDS) {
            throw ApiException.invalidField(
                    "retry.backoff_seconds",
                    "retry.backoff_seconds must be between 0 and " + MAX_RETRY_BACKOFF_SECONDS);
        }
        boolean lost = raw.retryWhenRunnerLost() != null && raw.retryWhenRunnerLost();
        if (raw.on() == null) {
            return new RetryPolicy(attempts, backoff, RetryPolicy.legacyOn(lost), finalExitCodes(raw.finalExitCodes()));
        }
        if (raw.retryWhenRunnerLost() != null) {
            throw ApiException.invalidField(
                    "retry.retry_when_runner_lost",
                    "give either retry.on or retry.retry_when_runner_lost (the older form, which maps onto on), not both");
        }
        return new RetryPolicy(attempts, backoff, retryOn(raw.on()), finalExitCodes(raw.finalExitCodes()));
    }

    private static Set<FailureKind> retryOn(List<String> raw) {
        if (raw.isEmpty()) {
            throw ApiException.invalidField(
                    "retry.on",
                    "retry.on needs at least one of " + RETRY_ON_NAMES + " (leave retry out for no retries)");
        }
        Set<FailureKind> on = EnumSet.noneOf(FailureKind.class);
        for (int i = 0; i < raw.size(); i++) {
            FailureKind kind = FailureKind.parse(raw.get(i));
            if (kind == null) {
                throw ApiException.invalidField(
                        "retry.on[" + i + "]",
                        "retry.on[" + i + "] must be one of " + RETRY_ON_NAMES + ", got " + raw.get(i));
            }
            on.add(kind);
        }
        return on;
    }

    private static Set<Integer> finalExitCodes(List<Integer> raw) {
        if (raw == null) return Set.of();
        if (raw.size() > MAX_FINAL_EXIT_CODES) {
            throw ApiException.invalidField(
                    "retry.final_exit_codes",
                    "retry.final_exit_codes lists at most " + MAX_FINAL_EXIT_CODES + " codes");
        }
        Set<Integer> codes = new TreeSet<>();
        for (int i = 0; i < raw.size(); i++) {
            Integer code = raw.get(i);
            if (code == null || code < 1 || code > 255) {
                throw ApiException.invalidField(
                        "retry.final_exit_codes[" + i + "]",
                        "retry.final_exit_codes[" + i + "] must be an exit code from 1 to 255, got " + code);
            }
            codes.add(code);
        }
        return codes;
    }
}

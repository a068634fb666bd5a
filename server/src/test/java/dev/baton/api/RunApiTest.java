package dev.baton.api;

import static dev.baton.api.Fixtures.DIGEST;
import static dev.baton.api.SpecApiTest.assertField;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.server.testing.TestImages;
import dev.baton.store.Job;
import dev.baton.store.JobFilter;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code POST /v0/run}: every row of seed 001's validation table and every field bound. One
 * server for the class; the rejection rows run first and must leave the store empty.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.MethodName.class)
class RunApiTest {
    static final String RESULT = "{\"bench\":{\"latency\":{\"value\":1.5}}}";
    static final String OTHER_PROJECT_ONLY = TestImages.image(List.of("other")).digest();
    static final Map<String, Object> TIMES =
            Map.of("start_time", "2026-01-01T00:00:00Z", "end_time", "2026-01-01T00:01:00Z");

    @TempDir
    static Path dir;

    TestServer s;

    @BeforeAll
    void start() {
        s = new TestServer(dir);
        Fixtures.organization(s, "ent", "enterprise");
        Fixtures.organization(s, "tm", "team");
        Fixtures.organization(s, "fr", "free");
        Fixtures.organization(s, "un", "unclaimed");
        for (String org : List.of("ent", "tm", "fr", "un")) Fixtures.project(s, "p-" + org, org);
        Fixtures.spec(s, "small");
        // p-tm also holds an image without a command, tagged "bare"; another project holds one p-tm does not.
        dev.baton.protocol.id.ProjectUuid tm = dev.baton.protocol.id.ProjectUuid.parse(
                s.get("/v0/projects/p-tm").json().path("uuid").asText());
        TestImages.push(dir, tm, "", "bare", TestImages.image(List.of()));
        Fixtures.organization(s, "elsewhere", "team");
        JsonNode other = Fixtures.project(s, "p-elsewhere", "elsewhere");
        TestImages.push(
                dir,
                dev.baton.protocol.id.ProjectUuid.parse(other.path("uuid").asText()),
                "",
                "own",
                TestImages.image(List.of("other")));
        Fixtures.spec(s, "gone");
        s.patch("/v0/specs/gone", Map.of("archived", true));
    }

    @AfterAll
    void stop() {
        s.close();
    }

    private static Map<String, Object> body(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    private static Map<String, Object> with(Map<String, Object> base, Map<String, Object> extra) {
        Map<String, Object> m = new HashMap<>(base);
        m.putAll(extra);
        return m;
    }

    static Stream<Arguments> rejected() {
        Map<String, Object> runner = body("project", "p-tm", "image", DIGEST, "spec", "small");
        Map<String, Object> direct = with(body("project", "p-tm", "results", List.of(RESULT)), TIMES);
        return Stream.of(
                // the mode table of seed 001
                Arguments.of(
                        "image without spec", body("project", "p-tm", "image", DIGEST), 400, "spec_required", "spec"),
                Arguments.of(
                        "image without spec, with results",
                        body("project", "p-tm", "image", DIGEST, "results", List.of(RESULT)),
                        400,
                        "spec_required",
                        "spec"),
                Arguments.of(
                        "spec without image", body("project", "p-tm", "spec", "small"), 400, "image_required", "image"),
                Arguments.of(
                        "spec without image, with results",
                        body("project", "p-tm", "spec", "small", "results", List.of(RESULT)),
                        400,
                        "image_required",
                        "image"),
                Arguments.of(
                        "image, spec and results",
                        with(runner, body("results", List.of(RESULT))),
                        400,
                        "results_with_image",
                        "results"),
                Arguments.of("nothing to run", body("project", "p-tm"), 400, "results_required", "results"),
                Arguments.of(
                        "empty results only",
                        body("project", "p-tm", "results", List.of()),
                        400,
                        "results_required",
                        "results"),
                // references
                Arguments.of("no project", body("image", DIGEST, "spec", "small"), 400, "missing_field", "project"),
                Arguments.of(
                        "unknown project", with(runner, body("project", "nope")), 404, "project_not_found", "project"),
                Arguments.of("unknown spec", with(runner, body("spec", "nope")), 404, "spec_not_found", "spec"),
                Arguments.of("archived spec", with(runner, body("spec", "gone")), 422, "spec_archived", "spec"),
                // what can never run (issue 10): refused at submit, nothing created
                Arguments.of(
                        "digest never pushed",
                        with(runner, body("image", "sha256:" + "cd".repeat(32))),
                        422,
                        "image_not_found",
                        "image"),
                Arguments.of(
                        "digest pushed to another project only",
                        with(runner, body("image", OTHER_PROJECT_ONLY)),
                        422,
                        "image_not_found",
                        "image"),
                Arguments.of("unknown tag", with(runner, body("image", "v2")), 422, "image_not_found", "image"),
                Arguments.of(
                        "unknown repository",
                        with(runner, body("image", "tools/bench:v1")),
                        422,
                        "image_not_found",
                        "image"),
                Arguments.of(
                        "image without a command, no cmd",
                        with(runner, body("image", "bare")),
                        422,
                        "no_command",
                        "cmd"),
                Arguments.of(
                        "image without a command, empty cmd",
                        with(runner, body("image", "bare", "cmd", List.of())),
                        422,
                        "no_command",
                        "cmd"),
                Arguments.of(
                        "no image, empty cmd",
                        body("project", "p-tm", "spec", "small", "cmd", List.of()),
                        422,
                        "no_command",
                        "cmd"),
                Arguments.of(
                        "queue_timeout below its minimum",
                        with(runner, body("queue_timeout", 9)),
                        400,
                        "invalid_field",
                        "queue_timeout"),
                Arguments.of(
                        "queue_timeout above its maximum",
                        with(runner, body("queue_timeout", 30 * 24 * 3600 + 1)),
                        400,
                        "invalid_field",
                        "queue_timeout"),
                Arguments.of(
                        "direct with queue_timeout",
                        with(direct, body("queue_timeout", 60)),
                        400,
                        "runner_field_in_direct_run",
                        "queue_timeout"),
                Arguments.of(
                        "require_labels with a bad key",
                        with(runner, body("require_labels", Map.of("a b", "1"))),
                        400,
                        "invalid_field",
                        "require_labels"),
                Arguments.of(
                        "prefer_labels with an empty value",
                        with(runner, body("prefer_labels", Map.of("zone", ""))),
                        400,
                        "invalid_field",
                        "prefer_labels"),
                Arguments.of(
                        "direct with require_labels",
                        with(direct, body("require_labels", Map.of("disk", "nvme"))),
                        400,
                        "runner_field_in_direct_run",
                        "require_labels"),
                // runner-mode fields
                Arguments.of(
                        "image not a reference",
                        with(runner, body("image", "Busy Box!")),
                        400,
                        "invalid_field",
                        "image"),
                Arguments.of(
                        "image digest uppercase",
                        with(runner, body("image", "sha256:" + "AB".repeat(32))),
                        400,
                        "invalid_field",
                        "image"),
                Arguments.of("timeout 0", with(runner, body("timeout", 0)), 400, "invalid_field", "timeout"),
                Arguments.of(
                        "timeout over max",
                        with(runner, body("timeout", JobTimeout.MAX + 1)),
                        400,
                        "invalid_field",
                        "timeout"),
                Arguments.of("timeout as string", with(runner, body("timeout", "60")), 400, "invalid_json", "timeout"),
                Arguments.of("iterations 0", with(runner, body("iterations", 0)), 400, "invalid_field", "iterations"),
                Arguments.of(
                        "iterations 101", with(runner, body("iterations", 101)), 400, "invalid_field", "iterations"),
                Arguments.of(
                        "entrypoint not strings",
                        with(runner, body("entrypoint", List.of(1))),
                        400,
                        "invalid_json",
                        "entrypoint[0]"),
                Arguments.of(
                        "cmd too many",
                        with(runner, body("cmd", java.util.Collections.nCopies(RunValidator.MAX_ARGS + 1, "x"))),
                        400,
                        "invalid_field",
                        "cmd"),
                Arguments.of(
                        "cmd arg too long",
                        with(runner, body("cmd", List.of("x".repeat(RunValidator.MAX_ARG_LENGTH + 1)))),
                        400,
                        "invalid_field",
                        "cmd[0]"),
                Arguments.of(
                        "cmd with NUL", with(runner, body("cmd", List.of("a\0b"))), 400, "invalid_field", "cmd[0]"),
                Arguments.of(
                        "env bad name",
                        with(runner, body("env", Map.of("1BAD", "x"))),
                        400,
                        "invalid_field",
                        "env.1BAD"),
                Arguments.of(
                        "env name with =",
                        with(runner, body("env", Map.of("A=B", "x"))),
                        400,
                        "invalid_field",
                        "env.A=B"),
                Arguments.of(
                        "env value not a string",
                        with(runner, body("env", Map.of("A", 1))),
                        400,
                        "invalid_json",
                        "env.A"),
                Arguments.of(
                        "file path with ..",
                        with(runner, body("file_paths", List.of("out/../../etc/passwd"))),
                        400,
                        "invalid_field",
                        "file_paths[0]"),
                Arguments.of(
                        "file path just ..",
                        with(runner, body("file_paths", List.of(".."))),
                        400,
                        "invalid_field",
                        "file_paths[0]"),
                Arguments.of(
                        "absolute path escaping",
                        with(runner, body("file_paths", List.of("/../etc/shadow"))),
                        400,
                        "invalid_field",
                        "file_paths[0]"),
                Arguments.of(
                        "empty file path",
                        with(runner, body("file_paths", List.of("ok.json", ""))),
                        400,
                        "invalid_field",
                        "file_paths[1]"),
                Arguments.of(
                        "file path is a directory",
                        with(runner, body("file_paths", List.of("out/"))),
                        400,
                        "invalid_field",
                        "file_paths[0]"),
                Arguments.of(
                        "duplicate file path",
                        with(runner, body("file_paths", List.of("a", "a"))),
                        400,
                        "invalid_field",
                        "file_paths[1]"),
                Arguments.of(
                        "too many file paths",
                        with(
                                runner,
                                body(
                                        "file_paths",
                                        java.util.stream.IntStream.range(0, 65)
                                                .mapToObj(i -> "f" + i)
                                                .toList())),
                        400,
                        "invalid_field",
                        "file_paths"),
                Arguments.of(
                        "start_time on runner run",
                        with(runner, body("start_time", "2026-01-01T00:00:00Z")),
                        400,
                        "time_in_runner_run",
                        "start_time"),
                Arguments.of(
                        "retry attempts 0",
                        with(runner, body("retry", Map.of("max_attempts", 0))),
                        400,
                        "invalid_field",
                        "retry.max_attempts"),
                // issue 41: which failures retry, and which exit codes never do
                Arguments.of(
                        "retry on empty",
                        with(runner, body("retry", Map.of("max_attempts", 2, "on", List.of()))),
                        400,
                        "invalid_field",
                        "retry.on"),
                Arguments.of(
                        "retry on unknown",
                        with(runner, body("retry", Map.of("max_attempts", 2, "on", List.of("failure", "disk")))),
                        400,
                        "invalid_field",
                        "retry.on[1]"),
                Arguments.of(
                        "retry on with the older field",
                        with(
                                runner,
                                body(
                                        "retry",
                                        Map.of(
                                                "max_attempts",
                                                2,
                                                "on",
                                                List.of("failure"),
                                                "retry_when_runner_lost",
                                                true))),
                        400,
                        "invalid_field",
                        "retry.retry_when_runner_lost"),
                Arguments.of(
                        "final exit code 0",
                        with(runner, body("retry", Map.of("max_attempts", 2, "final_exit_codes", List.of(1, 0)))),
                        400,
                        "invalid_field",
                        "retry.final_exit_codes[1]"),
                Arguments.of(
                        "final exit code 256",
                        with(runner, body("retry", Map.of("max_attempts", 2, "final_exit_codes", List.of(256)))),
                        400,
                        "invalid_field",
                        "retry.final_exit_codes[0]"),
                Arguments.of(
                        "too many final exit codes",
                        with(
                                runner,
                                body(
                                        "retry",
                                        Map.of(
                                                "max_attempts",
                                                2,
                                                "final_exit_codes",
                                                java.util.stream.IntStream.rangeClosed(1, 33)
                                                        .boxed()
                                                        .toList()))),
                        400,
                        "invalid_field",
                        "retry.final_exit_codes"),
                Arguments.of(
                        "bad adapter", with(runner, body("adapter", "Not Valid")), 400, "invalid_field", "adapter"),
                Arguments.of("blank branch", with(runner, body("branch", " ")), 400, "invalid_field", "branch"),
                Arguments.of(
                        "testbed too long",
                        with(runner, body("testbed", "t".repeat(257))),
                        400,
                        "invalid_field",
                        "testbed"),
                Arguments.of("unknown field", with(runner, body("imgae", DIGEST)), 400, "unknown_field", "imgae"),
                // direct-mode fields
                Arguments.of(
                        "direct without start_time",
                        body("project", "p-tm", "results", List.of(RESULT), "end_time", "2026-01-01T00:00:00Z"),
                        400,
                        "missing_field",
                        "start_time"),
                Arguments.of(
                        "direct without end_time",
                        body("project", "p-tm", "results", List.of(RESULT), "start_time", "2026-01-01T00:00:00Z"),
                        400,
                        "missing_field",
                        "end_time"),
                Arguments.of(
                        "direct end before start",
                        with(direct, body("end_time", "2025-12-31T00:00:00Z")),
                        400,
                        "invalid_field",
                        "end_time"),
                Arguments.of(
                        "direct bad time",
                        with(direct, body("start_time", "yesterday")),
                        400,
                        "invalid_field",
                        "start_time"),
                Arguments.of(
                        "direct result not JSON",
                        with(direct, body("results", List.of("{nope"))),
                        400,
                        "invalid_field",
                        "results[0]"),
                Arguments.of(
                        "direct result not an object",
                        with(direct, body("results", List.of("[1]"))),
                        400,
                        "invalid_field",
                        "results[0]"),
                Arguments.of(
                        "direct with timeout",
                        with(direct, body("timeout", 10)),
                        400,
                        "runner_field_in_direct_run",
                        "timeout"),
                Arguments.of(
                        "direct with cmd",
                        with(direct, body("cmd", List.of("x"))),
                        400,
                        "runner_field_in_direct_run",
                        "cmd"),
                Arguments.of(
                        "direct with iterations",
                        with(direct, body("iterations", 2)),
                        400,
                        "runner_field_in_direct_run",
                        "iterations"),
                Arguments.of(
                        "direct with file_paths",
                        with(direct, body("file_paths", List.of("a"))),
                        400,
                        "runner_field_in_direct_run",
                        "file_paths"),
                Arguments.of(
                        "direct with a baseline",
                        with(direct, body("baseline", Map.of("cmd", List.of("old")))),
                        400,
                        "runner_field_in_direct_run",
                        "baseline"),
                // Paired runs (issue 45, docs/paired-runs.md).
                Arguments.of("pairs without a baseline", with(runner, body("pairs", 5)), 400, "invalid_field", "pairs"),
                Arguments.of(
                        "until_significant without a baseline",
                        with(runner, body("until_significant", true)),
                        400,
                        "invalid_field",
                        "until_significant"),
                Arguments.of(
                        "a baseline without a command",
                        with(runner, body("baseline", Map.of("cmd", List.of()))),
                        400,
                        "invalid_field",
                        "baseline.cmd"),
                Arguments.of(
                        "an empty baseline",
                        with(runner, body("baseline", Map.of())),
                        400,
                        "invalid_field",
                        "baseline"),
                Arguments.of(
                        "a baseline image that is no reference",
                        with(runner, body("baseline", Map.of("image", "Not An Image!"))),
                        400,
                        "invalid_field",
                        "baseline.image"),
                Arguments.of(
                        "a baseline image with an empty cmd",
                        with(runner, body("baseline", Map.of("image", "v1", "cmd", List.of()))),
                        400,
                        "invalid_field",
                        "baseline.cmd"),
                Arguments.of(
                        "a baseline image for a run without an image",
                        body(
                                "project",
                                "p-tm",
                                "spec",
                                "small",
                                "cmd",
                                List.of("new"),
                                "baseline",
                                Map.of("image", "v1", "cmd", List.of("old"))),
                        400,
                        "baseline_image_without_image",
                        "baseline.image"),
                Arguments.of(
                        "a baseline image of another project",
                        with(runner, body("baseline", Map.of("image", "own"))),
                        422,
                        "image_not_found",
                        "baseline.image"),
                Arguments.of(
                        "a baseline image without a command and no baseline cmd",
                        with(runner, body("baseline", Map.of("image", "bare"))),
                        422,
                        "no_command",
                        "baseline.cmd"),
                Arguments.of(
                        "a baseline with iterations",
                        with(runner, body("baseline", Map.of("cmd", List.of("old")), "iterations", 3)),
                        400,
                        "invalid_field",
                        "iterations"),
                Arguments.of(
                        "one pair",
                        with(runner, body("baseline", Map.of("cmd", List.of("old")), "pairs", 1)),
                        400,
                        "invalid_field",
                        "pairs"),
                Arguments.of(
                        "201 pairs",
                        with(runner, body("baseline", Map.of("cmd", List.of("old")), "pairs", 201)),
                        400,
                        "invalid_field",
                        "pairs"),
                Arguments.of(
                        "a budget without until_significant",
                        with(runner, body("baseline", Map.of("cmd", List.of("old")), "budget", 60)),
                        400,
                        "invalid_field",
                        "budget"),
                Arguments.of(
                        "a minimum effect of 0",
                        with(
                                runner,
                                body(
                                        "baseline",
                                        Map.of("cmd", List.of("old")),
                                        "until_significant",
                                        true,
                                        "min_effect",
                                        0)),
                        400,
                        "invalid_field",
                        "min_effect"),
                Arguments.of(
                        "direct unknown project",
                        with(direct, body("project", "nope")),
                        404,
                        "project_not_found",
                        "project"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejected")
    void rejectedRunsWriteNothing(String name, Map<String, Object> body, int status, String code, String field) {
        assertField(s.post("/v0/run", body), status, code, field);
        long projectId = s.server
                .store()
                .organizations()
                .findProject(dev.baton.protocol.id.ResourceId.of("p-tm"))
                .orElseThrow()
                .id();
        assertThat(s.server.store().runs().listJobs(projectId, new JobFilter(null, null, null, 10, 0)))
                .isEmpty();
        assertThat(s.server.store().runs().findReport(1))
                .as("no report was written")
                .isEmpty();
        assertThat(s.submitted).isEmpty();
    }

    /** The older retry_when_runner_lost keeps working, shown mapped onto on; on and final_exit_codes are kept as given (issue 41). */
    @Test
    void zRetryPoliciesAreKeptAndTheOlderFieldShowsMappedOntoOn() {
        JsonNode old = Fixtures.created(s.post(
                        "/v0/run",
                        body(
                                "project",
                                "p-ent",
                                "image",
                                DIGEST,
                                "spec",
                                "small",
                                "retry",
                                Map.of("max_attempts", 3, "backoff_seconds", 5, "retry_when_runner_lost", true))))
                .path("job");
        JsonNode oldRetry = s.get("/v0/projects/p-ent/jobs/" + old.path("uuid").asText())
                .json()
                .path("retry");
        assertThat(oldRetry.path("max_attempts").asInt()).isEqualTo(3);
        assertThat(oldRetry.path("backoff_seconds").asInt()).isEqualTo(5);
        assertThat(oldRetry.path("on").toString()).isEqualTo("[\"runner_lost\",\"infrastructure\",\"failure\"]");
        JsonNode plain = Fixtures.created(s.post(
                        "/v0/run",
                        body("project", "p-ent", "image", DIGEST, "spec", "small", "retry", Map.of("max_attempts", 2))))
                .path("job");
        assertThat(s.get("/v0/projects/p-ent/jobs/" + plain.path("uuid").asText())
                        .json()
                        .at("/retry/on")
                        .toString())
                .isEqualTo("[\"infrastructure\",\"failure\"]");
        JsonNode chosen = Fixtures.created(s.post(
                        "/v0/run",
                        body(
                                "project",
                                "p-ent",
                                "image",
                                DIGEST,
                                "spec",
                                "small",
                                "retry",
                                Map.of(
                                        "max_attempts",
                                        2,
                                        "on",
                                        List.of("infrastructure", "runner_lost"),
                                        "final_exit_codes",
                                        List.of(3, 1)))))
                .path("job");
        JsonNode chosenRetry = s.get(
                        "/v0/projects/p-ent/jobs/" + chosen.path("uuid").asText())
                .json()
                .path("retry");
        assertThat(chosenRetry.path("on").toString()).isEqualTo("[\"runner_lost\",\"infrastructure\"]");
        assertThat(chosenRetry.path("final_exit_codes").toString()).isEqualTo("[1,3]");
    }

    @Test
    void zRunnerRunQueuesAJobWithTheSeedsConfig() {
        s.submitted.clear();
        Map<String, Object> req = body(
                "project",
                "p-ent",
                "image",
                DIGEST,
                "spec",
                "small",
                "timeout",
                120,
                "iterations",
                3,
                "entrypoint",
                List.of("/bin/sh", "-c"),
                "cmd",
                List.of("echo hi > /out/r.json"),
                "env",
                Map.of("MODE", "fast"),
                "file_paths",
                List.of("/out/r.json", "rel/x.txt"),
                "branch",
                "feature",
                "testbed",
                "box",
                "adapter",
                "json");
        JsonNode r = Fixtures.created(s.post("/v0/run", req));
        JsonNode job = r.path("job");
        JsonNode report = r.path("report");
        assertThat(job.path("status").asText()).isEqualTo("pending");
        assertThat(job.path("priority").asInt()).isEqualTo(300);
        assertThat(job.path("timeout").asInt()).isEqualTo(120);
        assertThat(job.path("report").asText()).isEqualTo(report.path("uuid").asText());
        assertThat(job.has("runner")).isFalse();
        JsonNode config = job.path("config");
        assertThat(config.path("registry").asText()).isEqualTo(s.server.publicUrl());
        assertThat(config.path("project").asText())
                .isEqualTo(s.get("/v0/projects/p-ent").json().path("uuid").asText());
        assertThat(config.path("digest").asText()).isEqualTo(DIGEST);
        assertThat(config.path("timeout").asInt()).isEqualTo(120);
        assertThat(config.path("iterations").asInt()).isEqualTo(3);
        assertThat(config.path("entrypoint").toString()).isEqualTo("[\"/bin/sh\",\"-c\"]");
        assertThat(config.path("cmd").get(0).asText()).isEqualTo("echo hi > /out/r.json");
        assertThat(config.path("env").path("MODE").asText()).isEqualTo("fast");
        assertThat(config.path("file_paths").toString()).isEqualTo("[\"/out/r.json\",\"rel/x.txt\"]");
        // placeholders until the runner's times are known
        assertThat(report.path("start_time").asText()).isEqualTo(TestServer.START.toString());
        assertThat(report.path("end_time").asText()).isEqualTo(TestServer.START.toString());
        assertThat(report.path("branch").asText()).isEqualTo("feature");
        assertThat(report.path("testbed").asText()).isEqualTo("box");
        assertThat(report.has("results")).isFalse();

        Job stored = s.server
                .store()
                .runs()
                .findJob(JobUuid.parse(job.path("uuid").asText()))
                .orElseThrow();
        assertThat(stored.status()).isEqualTo(JobStatus.PENDING);
        assertThat(stored.sourceIp()).isEqualTo("127.0.0.1");
        assertThat(s.submitted).extracting(Job::uuid).containsExactly(stored.uuid());
    }

    @Test
    void zATagIsResolvedAtSubmitAndStoredAsItsDigest() {
        JsonNode job = Fixtures.created(s.post("/v0/run", body("project", "p-tm", "image", "v1", "spec", "small")))
                .path("job");
        assertThat(job.path("config").path("digest").asText()).isEqualTo(DIGEST);
        dev.baton.protocol.id.ProjectUuid tm = dev.baton.protocol.id.ProjectUuid.parse(
                s.get("/v0/projects/p-tm").json().path("uuid").asText());
        String nested = TestImages.push(dir, tm, "tools/bench", "v3", TestImages.image(List.of("nested")));
        JsonNode byPath = Fixtures.created(
                        s.post("/v0/run", body("project", "p-tm", "image", "tools/bench:v3", "spec", "small")))
                .path("job");
        assertThat(byPath.path("config").path("digest").asText()).isEqualTo(nested);
        JsonNode byPathDigest = Fixtures.created(
                        s.post("/v0/run", body("project", "p-tm", "image", "tools/bench@" + nested, "spec", "small")))
                .path("job");
        assertThat(byPathDigest.path("config").path("digest").asText()).isEqualTo(nested);
        // Re-tagging later does not move a submitted job: it keeps the digest resolved at submit.
        TestImages.push(dir, tm, "", "v1", TestImages.image(List.of("retagged")));
        Job stored = s.server
                .store()
                .runs()
                .findJob(JobUuid.parse(job.path("uuid").asText()))
                .orElseThrow();
        assertThat(stored.config().digest().value()).isEqualTo(DIGEST);
        TestImages.push(dir, tm, "", "v1", TestImages.BENCH);
    }

    @Test
    void zAnImageWithoutACommandRunsWithTheJobsCmd() {
        JsonNode job = Fixtures.created(s.post(
                        "/v0/run", body("project", "p-tm", "image", "bare", "spec", "small", "cmd", List.of("run"))))
                .path("job");
        assertThat(job.path("config").path("cmd").get(0).asText()).isEqualTo("run");
    }

    @Test
    void zACommandWithoutAnImageIsARunForTrustedRunners() {
        JsonNode job = Fixtures.created(
                        s.post("/v0/run", body("project", "p-tm", "spec", "small", "cmd", List.of("echo", "hi"))))
                .path("job");
        assertThat(job.path("status").asText()).isEqualTo("pending");
        assertThat(job.path("config").has("digest")).isFalse();
        assertThat(job.path("config").path("cmd").toString()).isEqualTo("[\"echo\",\"hi\"]");
    }

    @Test
    void zAPairedRunCarriesItsBaselineAndASeedOnTheJobConfig() {
        JsonNode job = Fixtures.created(s.post(
                        "/v0/run",
                        body(
                                "project",
                                "p-tm",
                                "spec",
                                "small",
                                "cmd",
                                List.of("new"),
                                "baseline",
                                Map.of("cmd", List.of("old", "--fast")),
                                "until_significant",
                                true,
                                "budget",
                                600,
                                "min_effect",
                                0.02)))
                .path("job");
        JsonNode paired = job.at("/config/paired");
        assertThat(paired.path("baseline_cmd").toString()).isEqualTo("[\"old\",\"--fast\"]");
        assertThat(paired.path("pairs").asInt())
                .as("until_significant's default: the most")
                .isEqualTo(200);
        assertThat(paired.path("until_significant").asBoolean()).isTrue();
        assertThat(paired.path("budget").asInt()).isEqualTo(600);
        assertThat(paired.path("min_effect").asDouble()).isEqualTo(0.02);
        assertThat(paired.path("adapter").asText()).isEqualTo("json");
        assertThat(paired.has("seed")).isTrue();
        assertThat(job.at("/config/iterations").isMissingNode()).isTrue();

        JsonNode fixed = Fixtures.created(s.post(
                        "/v0/run",
                        body(
                                "project",
                                "p-tm",
                                "spec",
                                "small",
                                "cmd",
                                List.of("new"),
                                "baseline",
                                Map.of("cmd", List.of("old")))))
                .path("job");
        assertThat(fixed.at("/config/paired/pairs").asInt())
                .as("a fixed design's default")
                .isEqualTo(10);
        assertThat(fixed.at("/config/paired/until_significant").isMissingNode()).isTrue();
        assertThat(fixed.at("/config/paired/seed").asLong())
                .isNotEqualTo(paired.path("seed").asLong());
    }

    @Test
    void zAPairedRunWithABaselineImageCarriesItsDigest() {
        dev.baton.protocol.id.ProjectUuid tm = dev.baton.protocol.id.ProjectUuid.parse(
                s.get("/v0/projects/p-tm").json().path("uuid").asText());
        String old = TestImages.push(dir, tm, "", "old", TestImages.image(List.of("old-bench")));
        // The image alone: its own command runs on the baseline side; the tag is stored as its digest.
        JsonNode alone = Fixtures.created(s.post(
                        "/v0/run",
                        body("project", "p-tm", "image", DIGEST, "spec", "small", "baseline", Map.of("image", "old"))))
                .path("job");
        assertThat(alone.at("/config/paired/baseline_image").asText()).isEqualTo(old);
        assertThat(alone.at("/config/paired/baseline_cmd").isMissingNode()).isTrue();
        assertThat(alone.at("/config/digest").asText()).isEqualTo(DIGEST);
        // Only a runner that runs a baseline image may take it (decision 0076).
        assertThat(alone.path("require_labels").toString()).isEqualTo("{\"baton.dev/baseline-image\":\"true\"}");
        // An image without a command takes the baseline's cmd.
        JsonNode withCmd = Fixtures.created(s.post(
                        "/v0/run",
                        body(
                                "project",
                                "p-tm",
                                "image",
                                DIGEST,
                                "spec",
                                "small",
                                "baseline",
                                Map.of("image", "bare", "cmd", List.of("old", "--fast")))))
                .path("job");
        assertThat(withCmd.at("/config/paired/baseline_image").asText()).startsWith("sha256:");
        assertThat(withCmd.at("/config/paired/baseline_cmd").toString()).isEqualTo("[\"old\",\"--fast\"]");
        // Stored on the job as the runner gets it.
        Job stored = s.server
                .store()
                .runs()
                .findJob(JobUuid.parse(alone.path("uuid").asText()))
                .orElseThrow();
        assertThat(stored.config().paired().baselineImage().value()).isEqualTo(old);
        // A rerun keeps the baseline image (by digest), with a new pair order.
        JsonNode rerun = Fixtures.created(
                        s.post("/v0/projects/p-tm/jobs/" + alone.path("uuid").asText() + "/rerun", Map.of()))
                .path("job");
        assertThat(rerun.at("/config/paired/baseline_image").asText()).isEqualTo(old);
        assertThat(rerun.path("require_labels").toString()).isEqualTo("{\"baton.dev/baseline-image\":\"true\"}");
        assertThat(rerun.at("/config/paired/seed").asLong())
                .isNotEqualTo(alone.at("/config/paired/seed").asLong());
    }

    @Test
    void zQueueTimeoutComesFromTheJobElseItsSpec() {
        assertThat(s.patch("/v0/specs/small", Map.of("queue_timeout", 600))
                        .json()
                        .path("queue_timeout")
                        .asInt())
                .isEqualTo(600);
        JsonNode fromSpec = Fixtures.created(
                        s.post("/v0/run", body("project", "p-tm", "image", DIGEST, "spec", "small")))
                .path("job");
        assertThat(fromSpec.path("queue_timeout").asInt()).isEqualTo(600);
        JsonNode own = Fixtures.created(s.post(
                        "/v0/run", body("project", "p-tm", "image", DIGEST, "spec", "small", "queue_timeout", 30)))
                .path("job");
        assertThat(own.path("queue_timeout").asInt()).isEqualTo(30);
        assertThat(s.patch("/v0/specs/small", Map.of("queue_timeout", 0)).json().has("queue_timeout"))
                .isFalse();
        JsonNode none = Fixtures.created(s.post("/v0/run", body("project", "p-tm", "image", DIGEST, "spec", "small")))
                .path("job");
        assertThat(none.has("queue_timeout")).isFalse();
        assertThat(s.patch("/v0/specs/small", Map.of("queue_timeout", 5)).code())
                .isEqualTo("invalid_field");
    }

    @Test
    void zRunnerRunDefaultsAndPriorityFollowThePlan() {
        s.submitted.clear();
        Map<String, Integer> expected = Map.of("p-ent", 300, "p-tm", 200, "p-fr", 100, "p-un", 0);
        expected.forEach((project, priority) -> {
            JsonNode job = Fixtures.created(
                            s.post("/v0/run", body("project", project, "image", DIGEST, "spec", "small")))
                    .path("job");
            assertThat(job.path("priority").asInt()).as(project).isEqualTo(priority);
            assertThat(job.path("timeout").asInt()).isEqualTo(3600);
            assertThat(job.path("config").path("iterations").asInt()).isEqualTo(1);
            assertThat(job.path("config").has("cmd")).isFalse();
        });
        assertThat(s.submitted).hasSize(4);
    }

    @Test
    void zDirectRunStoresResultsWithoutAJob() {
        s.submitted.clear();
        Map<String, Object> req = with(
                body(
                        "project",
                        "p-fr",
                        "results",
                        List.of(RESULT, Map.of("other", Map.of("latency", Map.of("value", 2))))),
                TIMES);
        JsonNode r = Fixtures.created(s.post("/v0/run", req));
        assertThat(r.has("job")).isFalse();
        JsonNode report = r.path("report");
        assertThat(report.path("start_time").asText()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(report.path("end_time").asText()).isEqualTo("2026-01-01T00:01:00Z");
        assertThat(report.path("adapter").asText()).isEqualTo("json");
        assertThat(report.path("branch").asText()).isEqualTo("main");
        // Each entry is one iteration for the adapter; results merges them.
        assertThat(report.path("iterations")
                        .get(0)
                        .path("results")
                        .path("bench")
                        .path("latency")
                        .path("value")
                        .asDouble())
                .isEqualTo(1.5);
        assertThat(report.path("iterations").get(1).path("results").has("other"))
                .isTrue();
        assertThat(report.path("results")
                        .path("bench")
                        .path("latency")
                        .path("value")
                        .asDouble())
                .isEqualTo(1.5);
        assertThat(report.path("results")
                        .path("other")
                        .path("latency")
                        .path("value")
                        .asDouble())
                .isEqualTo(2.0);
        assertThat(s.submitted).isEmpty();
    }
}

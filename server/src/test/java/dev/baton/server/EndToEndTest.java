package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.TestRunner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The assembled server (management API + runner channel + registry + metrics) driven the way a
 * user and a runner drive it: over HTTP and a WebSocket, with a test clock for the timeouts.
 */
class EndToEndTest {
    @TempDir
    Path dataDir;

    final MutableClock clock = MutableClock.startingNow();
    final HttpClient http = HttpClient.newHttpClient();
    BatonServer server;
    String admin;
    String project;

    @BeforeEach
    void start() throws Exception {
        ServerConfig config = ServerConfig.builder(dataDir)
                .host("127.0.0.1")
                .port(0)
                .requestBodyMaxBytes(1 << 20)
                .maxRequeues(3)
                .build();
        server = ServerAssembly.builder(config, clock).start();
        admin = Files.readString(dataDir.resolve("admin-token")).strip();
        post("/v0/organizations", Map.of("name", "Acme", "slug", "acme", "plan", "team"), 201);
        project = post("/v0/projects", Map.of("name", "Bench", "slug", "bench", "organization", "acme"), 201)
                .get("uuid")
                .asText();
        post(
                "/v0/specs",
                Map.of(
                        "name",
                        "small",
                        "slug",
                        "small",
                        "architecture",
                        "x86_64",
                        "cpu",
                        2,
                        "memory",
                        1 << 30,
                        "disk",
                        1L << 33),
                201);
    }

    @AfterEach
    void stop() {
        http.shutdownNow();
        server.close();
    }

    JsonNode post(String path, Object body, int expectedStatus) throws Exception {
        var response = http.send(
                HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                        .header("Authorization", "Bearer " + admin)
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(expectedStatus);
        return response.body().isEmpty() ? null : Wire.mapper().readTree(response.body());
    }

    JsonNode get(String path) throws Exception {
        var response = http.send(
                HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                        .header("Authorization", "Bearer " + admin)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return Wire.mapper().readTree(response.body());
    }

    TestRunner connectRunner(String name) throws Exception {
        JsonNode created = post("/v0/runners", Map.of("name", name), 201);
        String slug = created.get("runner").get("slug").asText();
        post("/v0/runners/" + slug + "/specs", Map.of("spec", "small"), 201);
        URI channel = URI.create(server.publicUrl().replace("http://", "ws://") + "/v0/runners/" + slug + "/channel");
        return TestRunner.connect(channel, created.get("key").asText());
    }

    String submit() throws Exception {
        return submitRun().at("/job/uuid").asText();
    }

    JsonNode submitRun() throws Exception {
        String image = dev.baton.server.testing.TestImages.push(
                dataDir,
                dev.baton.protocol.id.ProjectUuid.parse(project),
                "",
                "v1",
                dev.baton.server.testing.TestImages.BENCH);
        return post(
                "/v0/run",
                Map.of(
                        "project",
                        "bench",
                        "image",
                        image,
                        "spec",
                        "small",
                        "adapter",
                        "json",
                        "cmd",
                        List.of("bench"),
                        "timeout",
                        120),
                201);
    }

    @Test
    void aRunSubmittedOverHttpRunsOnAWaitingRunnerAndItsOutputIsServed() throws Exception {
        TestRunner runner = connectRunner("box 1");
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);

        JsonNode run = submitRun();
        String job = run.at("/job/uuid").asText();
        String report = run.at("/report/uuid").asText();
        assertThat(get("/v0/projects/bench/reports/" + report).has("results"))
                .as("no results before the job ran")
                .isFalse();
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        assertThat(claimed.uuid().toString()).isEqualTo(job);
        assertThat(claimed.config().registry()).isEqualTo(server.publicUrl());
        assertThat(claimed.ociToken().split("\\.")).as("a signed JWT").hasSize(3);

        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        runner.send(new RunnerMessage.Completed(
                claimed.uuid(),
                claimed.lease(),
                List.of(new IterationResult(0, "{\"sort\":{\"latency\":{\"value\":4.2}}}", "", Map.of()))));
        runner.expect(ServerMessage.Ack.class);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> get("/v0/projects/bench/jobs/" + job)
                        .get("status")
                        .asText()
                        .equals("processed"));
        JsonNode view = get("/v0/projects/" + project + "/jobs/" + job);
        assertThat(view.at("/output/results/0/stdout").asText()).contains("latency");
        assertThat(view.has("lease")).as("the lease is never shown to users").isFalse();
        JsonNode parsed = get("/v0/projects/bench/reports/" + report);
        assertThat(parsed.at("/results/sort/latency/value").asDouble()).isEqualTo(4.2);
        assertThat(parsed.at("/iterations/0/results/sort/latency/value").asDouble())
                .isEqualTo(4.2);
        assertThat(parsed.at("/job/status").asText()).isEqualTo("processed");
        assertThat(parsed.get("start_time").asText())
                .as("real start replaces the placeholder")
                .isEqualTo(view.get("started").asText());
        assertThat(dataDir.resolve("storage").resolve(project).resolve("output"))
                .as("a small output is kept on attempt 1's row, not as a file (decision 0034)")
                .doesNotExist();
        runner.crash();
    }

    /**
     * The submission's own answer explains the wait from the spec and labels it was given, without
     * reading them back (issue 13): it must say the same as a later read of the job.
     */
    @Test
    void theSubmissionAnswerExplainsTheWaitFromTheLabelsItWasGiven() throws Exception {
        TestRunner runner = connectRunner("box 1");
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);
        String image = dev.baton.server.testing.TestImages.push(
                dataDir,
                dev.baton.protocol.id.ProjectUuid.parse(project),
                "",
                "v1",
                dev.baton.server.testing.TestImages.BENCH);
        JsonNode run = post(
                "/v0/run",
                Map.of(
                        "project",
                        "bench",
                        "image",
                        image,
                        "spec",
                        "small",
                        "adapter",
                        "json",
                        "cmd",
                        List.of("bench"),
                        "timeout",
                        120,
                        "require_labels",
                        Map.of("gpu", "a100"),
                        "prefer_labels",
                        Map.of("zone", "b")),
                201);

        JsonNode answered = run.get("job");
        assertThat(answered.at("/pending_reason/code").asText()).isEqualTo("labels_unmatched");
        assertThat(answered.at("/pending_reason/message").asText())
                .contains("spec 'small'")
                .contains("gpu=a100");
        assertThat(answered.at("/require_labels/gpu").asText()).isEqualTo("a100");
        assertThat(answered.at("/prefer_labels/zone").asText()).isEqualTo("b");
        JsonNode read = get("/v0/projects/bench/jobs/" + answered.get("uuid").asText());
        for (String field : List.of("pending_reason", "queue_position", "require_labels", "prefer_labels", "spec")) {
            assertThat(answered.get(field)).as(field).isEqualTo(read.get(field));
        }
        runner.crash();
    }

    @Test
    void aPendingJobSaysWhyItWaitsInTheApiAndADeclineIsShownOnItsAttempt() throws Exception {
        String job = submit();
        JsonNode pending = get("/v0/projects/bench/jobs/" + job);
        assertThat(pending.at("/pending_reason/code").asText()).isEqualTo("no_runner");
        assertThat(pending.at("/pending_reason/message").asText()).contains("small");
        assertThat(pending.get("queue_position").asInt()).isEqualTo(1);
        assertThat(pending.has("predicted_start")).as("no history: unknown").isFalse();
        JsonNode listed = get("/v0/projects/bench/jobs").get("jobs").get(0);
        assertThat(listed.at("/pending_reason/code").asText()).isEqualTo("no_runner");
        assertThat(listed.has("attempts")).as("attempts only on a single read").isFalse();

        TestRunner runner = connectRunner("box 1");
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        assertThat(get("/v0/projects/bench/jobs/" + job).has("pending_reason"))
                .as("only while pending")
                .isFalse();
        runner.send(new RunnerMessage.Declined(
                claimed.uuid(), claimed.lease(), DeclineCode.PULL_FAILED, "registry answered HTTP 503"));
        runner.expect(ServerMessage.Ack.class);

        JsonNode after = get("/v0/projects/bench/jobs/" + job);
        assertThat(after.at("/pending_reason/code").asText()).isEqualTo("retry_backoff");
        assertThat(after.at("/pending_reason/until").asText())
                .isEqualTo(clock.instant().plusSeconds(30).toString());
        assertThat(after.at("/pending_reason/declines/0/runner").asText()).isEqualTo("box-1");
        assertThat(after.at("/pending_reason/declines/0/code").asText()).isEqualTo("pull_failed");
        assertThat(after.at("/attempts/0/outcome").asText()).isEqualTo("declined");
        assertThat(after.at("/attempts/0/decline_code").asText()).isEqualTo("pull_failed");
        assertThat(after.at("/attempts/0/decline_reason").asText()).isEqualTo("registry answered HTTP 503");
        var metrics = http.send(
                        HttpRequest.newBuilder(URI.create(server.publicUrl() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics)
                .contains("baton_jobs_pending{reason=\"retry_backoff\"} 1.0")
                .contains("baton_job_declines_total{code=\"pull_failed\"} 1.0");
        runner.crash();
    }

    @Test
    void aUserCancelOverHttpIsPushedToTheRunningRunner() throws Exception {
        TestRunner runner = connectRunner("box 2");
        String job = submit();
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);

        post("/v0/projects/bench/jobs/" + job + "/cancel", Map.of(), 200);
        assertThat(runner.expect(ServerMessage.Cancel.class).job()).isEqualTo(claimed.uuid());
        runner.send(new RunnerMessage.Canceled(claimed.uuid(), claimed.lease(), List.of()));
        runner.expect(ServerMessage.Ack.class);
        assertThat(get("/v0/projects/bench/jobs/" + job).get("status").asText()).isEqualTo("canceled");
        runner.crash();
    }

    @Test
    void drainAndUpdateReachAConnectedRunnerAndUsageIsReadable() throws Exception {
        TestRunner runner = connectRunner("box 3");
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);
        post("/v0/runners/box-3/drain", Map.of("state", "quiet"), 202);
        assertThat(runner.expect(ServerMessage.Drain.class).state().wireName()).isEqualTo("quiet");
        post(
                "/v0/runners/box-3/update",
                Map.of("version", "0.2.0", "url", "https://example.invalid/baton.jar", "checksum", "c".repeat(64)),
                202);
        assertThat(runner.expect(ServerMessage.Update.class).version()).isEqualTo("0.2.0");
        post(
                "/v0/runners/box-3/update",
                Map.of("version", "0.2.0", "url", "https://example.invalid/baton.jar", "checksum", "nope"),
                400);
        runner.crash();
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> post("/v0/runners/box-3/drain", Map.of("state", "quiet"), 409));
        assertThat(get("/v0/organizations/acme/usage").get("minutes").asLong()).isZero();
    }

    @Test
    void prometheusMetricsAreServed() throws Exception {
        var response = http.send(
                HttpRequest.newBuilder(URI.create(server.publicUrl() + "/metrics"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("baton_runners_connected").contains("baton_jobs_in_flight");
    }
}

package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.TestRunner;
import dev.baton.web.http.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reports through the assembled server (API, runner channel, dispatch): a runner on the channel
 * reports per-iteration output, the server's adapter parses it, and
 * {@code GET /v0/projects/{p}/reports/{r}} shows the merged results, every iteration, the error
 * and the job.
 */
class ReportApiTest {
    static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    final MutableClock clock = MutableClock.startingNow();
    final HttpClient http = HttpClient.newHttpClient();
    BatonServer server;
    String admin;
    final Api s = new Api();
    TestRunner runner;

    /** The management API over HTTP with the admin token, answering in TestServer's shape. */
    final class Api {
        TestServer.Response get(String path) {
            return send(HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                    .GET());
        }

        TestServer.Response post(String path, Object body) {
            return send(HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                    .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body))));
        }

        private TestServer.Response send(HttpRequest.Builder request) {
            try {
                HttpResponse<String> r = http.send(
                        request.header("Authorization", "Bearer " + admin).build(),
                        HttpResponse.BodyHandlers.ofString());
                return new TestServer.Response(
                        r.statusCode(),
                        r.body().isEmpty() ? null : Wire.mapper().readTree(r.body()),
                        r.body());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    @BeforeEach
    void start() throws IOException {
        server = ServerAssembly.builder(TestServer.config(dir), clock).start();
        admin = Files.readString(dir.resolve("admin-token")).strip();
        Fixtures.created(s.post("/v0/organizations", Map.of("name", "org", "slug", "org", "plan", "team")));
        Fixtures.created(s.post("/v0/projects", Map.of("name", "proj", "slug", "proj", "organization", "org")));
        Fixtures.created(s.post(
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
                        1L << 30,
                        "disk",
                        10L << 30)));
        String key = Fixtures.created(s.post("/v0/runners", Map.of("name", "r1", "slug", "r1")))
                .path("key")
                .asText();
        Fixtures.created(s.post("/v0/runners/r1/specs", Map.of("spec", "small")));
        runner = TestRunner.connect(
                URI.create(server.publicUrl().replace("http://", "ws://") + "/v0/runners/r1/channel"), key);
    }

    @AfterEach
    void stop() {
        if (runner != null) runner.close();
        http.shutdownNow();
        server.close();
    }

    /** Submits a run, lets the runner claim and start it, and sends {@code completed} with these iterations. */
    private JsonNode runToCompletion(Map<String, Object> extra, List<IterationResult> iterations) {
        // Command-only: the runner here is a test peer on the channel, it pulls nothing.
        Map<String, Object> body = Fixtures.runBody("proj", "small", extra);
        body.remove("image");
        body.putIfAbsent("cmd", List.of("bench"));
        JsonNode run = Fixtures.created(s.post("/v0/run", body));
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        assertThat(claimed.uuid().toString()).isEqualTo(run.at("/job/uuid").asText());
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        runner.send(new RunnerMessage.Completed(claimed.uuid(), claimed.lease(), iterations));
        runner.expect(ServerMessage.Ack.class);
        return run;
    }

    private JsonNode report(JsonNode run) {
        TestServer.Response r =
                s.get("/v0/projects/proj/reports/" + run.at("/report/uuid").asText());
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json();
    }

    private String jobStatus(JsonNode run) {
        return s.get("/v0/projects/proj/jobs/" + run.at("/job/uuid").asText())
                .json()
                .path("status")
                .asText();
    }

    /** JMH's JSON (https://github.com/openjdk/jmh, -rf json) with one benchmark at this score in ops/ms. */
    private static String jmh(double score, double low, double high) {
        return "[{\"jmhVersion\": \"1.37\", \"benchmark\": \"org.example.Bench.run\", \"mode\": \"thrpt\", \"threads\": 1, \"forks\": 1,"
                + " \"primaryMetric\": {\"score\": " + score + ", \"scoreError\": 1.0, \"scoreConfidence\": [" + low
                + ", " + high + "],"
                + " \"scoreUnit\": \"ops/ms\", \"rawData\": [[" + score + "]]}, \"secondaryMetrics\": {}}]";
    }

    @Test
    void aJobsCollectedFileIsParsedIntoMetricsPerIterationAndMerged() {
        String human = "# JMH version: 1.37\n# Benchmark: org.example.Bench.run\nIteration   1: 1000.000 ops/ms\n";
        JsonNode run = runToCompletion(
                Map.of(
                        "adapter",
                        "java_jmh",
                        "file_paths",
                        List.of("out/jmh.json", "out/gc.log"),
                        "results_file",
                        "out/jmh.json",
                        "iterations",
                        2),
                List.of(
                        new IterationResult(
                                0, human, "", Map.of("out/jmh.json", jmh(1000, 990, 1010), "out/gc.log", "gc")),
                        new IterationResult(
                                0, human, "", Map.of("out/jmh.json", jmh(1200, 1180, 1220), "out/gc.log", "gc"))));
        assertThat(run.at("/report/results_file").asText()).isEqualTo("out/jmh.json");
        assertThat(run.at("/report/job/uuid").asText())
                .as("a runner run's report shows its job")
                .isEqualTo(run.at("/job/uuid").asText());

        await().atMost(WAIT).until(() -> jobStatus(run).equals("processed"));
        JsonNode report = report(run);
        assertThat(report.get("adapter").asText()).isEqualTo("java_jmh");
        assertThat(report.has("error")).isTrue();
        assertThat(report.get("error").isNull()).isTrue();
        // Every iteration kept, from 0, in base units (ops/ms → ops/s).
        JsonNode iterations = report.get("iterations");
        assertThat(iterations).hasSize(2);
        assertThat(iterations.get(0).get("iteration").asInt()).isZero();
        assertThat(iterations
                        .get(0)
                        .at("/results/org.example.Bench.run/throughput/value")
                        .asDouble())
                .isEqualTo(1_000_000.0);
        assertThat(iterations
                        .get(0)
                        .at("/results/org.example.Bench.run/throughput/lower_value")
                        .asDouble())
                .isEqualTo(990_000.0);
        assertThat(iterations.get(0).get("error").isNull()).isTrue();
        assertThat(iterations.get(1).get("iteration").asInt()).isEqualTo(1);
        assertThat(iterations
                        .get(1)
                        .at("/results/org.example.Bench.run/throughput/value")
                        .asDouble())
                .isEqualTo(1_200_000.0);
        // Merged: the mean, bounded by the lowest and highest bound of any iteration.
        JsonNode merged = report.at("/results/org.example.Bench.run/throughput");
        assertThat(merged.get("value").asDouble()).isEqualTo(1_100_000.0);
        assertThat(merged.get("lower_value").asDouble()).isEqualTo(990_000.0);
        assertThat(merged.get("upper_value").asDouble()).isEqualTo(1_220_000.0);
        assertThat(report.at("/job/status").asText()).isEqualTo("processed");
        assertThat(report.at("/job/uuid").asText())
                .isEqualTo(run.at("/job/uuid").asText());
    }

    @Test
    void outputThatDoesNotParseLeavesTheJobCompletedWithTheErrorOnTheReport() {
        JsonNode run = runToCompletion(
                Map.of("adapter", "go_bench", "iterations", 2),
                List.of(
                        new IterationResult(
                                0, "BenchmarkSort-8   1000   1234 ns/op   56 B/op   2 allocs/op\nPASS\n", "", Map.of()),
                        new IterationResult(0, "panic: index out of range\n", "", Map.of())));

        await().atMost(WAIT).until(() -> !report(run).get("error").isNull());
        JsonNode report = report(run);
        assertThat(report.get("error").asText())
                .isEqualTo(
                        "adapter go_bench: iteration 1: no Go benchmark result lines (Benchmark<Name> <iterations> <value> <unit> …)");
        assertThat(jobStatus(run))
                .as("the seed: the job itself is still completed")
                .isEqualTo("completed");
        assertThat(report.at("/job/status").asText()).isEqualTo("completed");
        // What did parse is kept: iteration 0's metrics, and they are the merged results.
        assertThat(report.at("/iterations/0/results/BenchmarkSort-8/latency/value")
                        .asDouble())
                .isEqualTo(1234.0);
        assertThat(report.at("/iterations/0/results/BenchmarkSort-8/allocated-bytes/value")
                        .asDouble())
                .isEqualTo(56.0);
        assertThat(report.at("/iterations/1/results").isNull()).isTrue();
        assertThat(report.at("/iterations/1/error").asText()).startsWith("no Go benchmark result lines");
        assertThat(report.at("/results/BenchmarkSort-8/latency/value").asDouble())
                .isEqualTo(1234.0);
        assertThat(report.get("start_time").asText())
                .as("the job's real times, as for a processed job")
                .isEqualTo(s.get("/v0/projects/proj/jobs/" + run.at("/job/uuid").asText())
                        .json()
                        .get("started")
                        .asText());
    }

    @Test
    void aResultsFileTheRunnerDidNotCollectIsAnIterationError() {
        JsonNode run = runToCompletion(
                Map.of("adapter", "json", "file_paths", List.of("bmf.json"), "results_file", "bmf.json"),
                List.of(new IterationResult(1, "{\"a\": {\"latency\": {\"value\": 1}}}", "", Map.of())));
        await().atMost(WAIT).until(() -> !report(run).get("error").isNull());
        assertThat(report(run).get("error").asText())
                .isEqualTo("adapter json: iteration 0: results_file 'bmf.json' was not collected");
        assertThat(jobStatus(run)).isEqualTo("completed");
    }

    @Test
    void magicFindsTheToolOfARunnersOutput() {
        JsonNode run = runToCompletion(
                Map.of("adapter", "magic"),
                List.of(new IterationResult(
                        0, "fib 20                  time:   [18.201 µs 18.312 µs 18.437 µs]\n", "", Map.of())));
        await().atMost(WAIT).until(() -> jobStatus(run).equals("processed"));
        assertThat(report(run).at("/results/fib 20/latency/value").asDouble()).isEqualTo(18_312.0);
    }

    @Test
    void directResultsGoThroughTheSameAdapters() {
        Map<String, Object> body = new HashMap<>(Map.of(
                "project",
                "proj",
                "adapter",
                "go_bench",
                "start_time",
                "2026-01-01T00:00:00Z",
                "end_time",
                "2026-01-01T00:01:00Z",
                "results",
                List.of("BenchmarkHash-8  5000  300 ns/op\n", "BenchmarkHash-8  5000  500 ns/op\n")));
        JsonNode run = Fixtures.created(s.post("/v0/run", body));
        JsonNode report = report(run);
        assertThat(report.get("job").isNull()).as("a direct run has no job").isTrue();
        assertThat(report.get("error").isNull()).isTrue();
        assertThat(report.get("iterations")).hasSize(2);
        assertThat(report.at("/iterations/1/results/BenchmarkHash-8/latency/value")
                        .asDouble())
                .isEqualTo(500.0);
        assertThat(report.at("/results/BenchmarkHash-8/latency/value").asDouble())
                .isEqualTo(400.0);
        assertThat(report.at("/results/BenchmarkHash-8/latency/lower_value").asDouble())
                .isEqualTo(300.0);
        assertThat(report.at("/results/BenchmarkHash-8/latency/upper_value").asDouble())
                .isEqualTo(500.0);
        assertThat(run.at("/report/results")).isEqualTo(report.get("results"));

        body.put("results", List.of("BenchmarkHash-8  5000  300 ns/op\n", "PASS\n"));
        TestServer.Response refused = s.post("/v0/run", body);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.code()).isEqualTo("invalid_field");
        assertThat(refused.json().path("field").asText()).isEqualTo("results[1]");
        assertThat(refused.json().path("message").asText())
                .contains("adapter go_bench")
                .contains("no Go benchmark result lines");
    }

    @Test
    void anUnknownAdapterOrAResultsFileOutsideFilePathsIsRefusedAtSubmit() {
        TestServer.Response unknown =
                s.post("/v0/run", Fixtures.runBody("proj", "small", Map.of("adapter", "rust_iai")));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.code()).isEqualTo("invalid_field");
        assertThat(unknown.json().path("field").asText()).isEqualTo("adapter");
        assertThat(unknown.json().path("message").asText()).contains("java_jmh").contains("magic");

        TestServer.Response notCollected = s.post(
                "/v0/run",
                Fixtures.runBody("proj", "small", Map.of("file_paths", List.of("a.json"), "results_file", "b.json")));
        assertThat(notCollected.status()).isEqualTo(400);
        assertThat(notCollected.json().path("field").asText()).isEqualTo("results_file");

        TestServer.Response direct = s.post(
                "/v0/run",
                Map.of(
                        "project",
                        "proj",
                        "results",
                        List.of("{}"),
                        "results_file",
                        "a.json",
                        "start_time",
                        "2026-01-01T00:00:00Z",
                        "end_time",
                        "2026-01-01T00:01:00Z"));
        assertThat(direct.status()).isEqualTo(400);
        assertThat(direct.code()).isEqualTo("runner_field_in_direct_run");
        assertThat(s.get("/v0/projects/proj/jobs").json().path("jobs"))
                .as("nothing was queued")
                .isEmpty();
    }
}

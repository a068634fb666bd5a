package dev.baton.dispatch.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.TestRunner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live logs through the assembled server: a runner streams {@code log} messages over a real
 * WebSocket, and a user reads them over real HTTP, as JSON pages and as a Server-Sent Events
 * stream across a reconnect.
 */
class LiveLogsTest {
    @TempDir
    Path dataDir;

    final MutableClock clock = MutableClock.startingNow();
    final HttpClient http = HttpClient.newHttpClient();
    BatonServer server;
    String admin;
    TestRunner runner;
    long seq;

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
        post("/v0/projects", Map.of("name", "Bench", "slug", "bench", "organization", "acme"), 201);
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
        JsonNode created = post("/v0/runners", Map.of("name", "box"), 201);
        post("/v0/runners/box/specs", Map.of("spec", "small"), 201);
        runner = TestRunner.connect(
                URI.create(server.publicUrl().replace("http://", "ws://") + "/v0/runners/box/channel"),
                created.get("key").asText());
    }

    @AfterEach
    void stop() {
        runner.crash();
        http.shutdownNow();
        server.close();
    }

    JsonNode post(String path, Object body, int expected) throws Exception {
        var r = http.send(
                HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                        .header("Authorization", "Bearer " + admin)
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(expected);
        return r.body().isEmpty() ? null : Wire.mapper().readTree(r.body());
    }

    JsonNode get(String path, int expected) throws Exception {
        var r = http.send(
                HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                        .header("Authorization", "Bearer " + admin)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(expected);
        return Wire.mapper().readTree(r.body());
    }

    /** Submits a run and takes it on the test runner up to running. */
    ClaimedJob running() throws Exception {
        // raw: the printed lines are no benchmark data, and the job must reach processed.
        post(
                "/v0/run",
                Map.of("project", "bench", "spec", "small", "adapter", "raw", "cmd", List.of("bench"), "timeout", 120),
                201);
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        seq = 0;
        return claimed;
    }

    void log(ClaimedJob job, LogStream stream, String text) {
        runner.send(RunnerMessage.Log.text(job.uuid(), job.lease(), ++seq, stream, 0, text));
        assertThat(runner.expect(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
    }

    String logsPath(ClaimedJob job) {
        return "/v0/projects/bench/jobs/" + job.uuid() + "/logs";
    }

    @Test
    void aSingleNodeServesNoOtherNodeAndAsksNone() throws Exception {
        ClaimedJob job = running();
        log(job, LogStream.STDOUT, "here only\n");
        // SQLite is one node: the route between nodes is not there, whatever the credential.
        var r = http.send(
                HttpRequest.newBuilder(URI.create(server.publicUrl() + "/cluster/jobs/" + job.uuid() + "/logs"))
                        .header("Authorization", "Bearer " + admin)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(get(logsPath(job), 200).get("entries")).hasSize(1);
        // Nor does it work out the address other nodes would reach it at (with host 0.0.0.0, a DNS lookup).
        new LogRoutes(server.store(), null, new LiveLogs(), null, "solo", Duration.ofSeconds(30), clock)
                .afterHttpStart(() -> {
                    throw new AssertionError("a single node asked for its advertise_url");
                });
    }

    @Test
    void logsStreamedUnderTheCurrentLeaseAreServedAndStaleOnesAreRefused() throws Exception {
        ClaimedJob job = running();
        log(job, LogStream.STDOUT, "warming up\n");
        log(job, LogStream.STDERR, "note: cold cache\n");
        log(job, LogStream.STDOUT, "iteration 1: 4.2 ms\n");

        JsonNode page = get(logsPath(job), 200);
        assertThat(page.get("job").asText()).isEqualTo(job.uuid().toString());
        assertThat(page.get("status").asText()).isEqualTo("running");
        assertThat(page.get("complete").asBoolean()).isFalse();
        assertThat(page.get("next").asLong()).isEqualTo(3);
        assertThat(page.get("entries")).hasSize(3);
        assertThat(page.at("/entries/1/seq").asLong()).isEqualTo(2);
        assertThat(page.at("/entries/1/stream").asText()).isEqualTo("stderr");
        assertThat(page.at("/entries/1/iteration").asInt()).isZero();
        assertThat(page.at("/entries/1/text").asText()).isEqualTo("note: cold cache\n");
        assertThat(page.at("/entries/1").has("dropped")).isFalse();

        JsonNode after = get(logsPath(job) + "?after=2", 200);
        assertThat(after.get("entries")).hasSize(1);
        assertThat(after.at("/entries/0/text").asText()).isEqualTo("iteration 1: 4.2 ms\n");
        assertThat(get(logsPath(job) + "?after=3", 200).get("entries")).isEmpty();

        // A lease that is not the job's current one changes nothing.
        runner.send(RunnerMessage.Log.text(job.uuid(), LeaseId.random(), ++seq, LogStream.STDOUT, 0, "intruder\n"));
        assertThat(runner.expect(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());
        // A job that does not exist is stale too.
        runner.send(RunnerMessage.Log.text(JobUuid.random(), job.lease(), 1, LogStream.STDOUT, 0, "ghost\n"));
        runner.expect(ServerMessage.Stale.class);
        assertThat(get(logsPath(job), 200).get("entries")).hasSize(3);

        // A repeated seq is acknowledged and not stored twice.
        runner.send(RunnerMessage.Log.text(job.uuid(), job.lease(), 3, LogStream.STDOUT, 0, "iteration 1: 4.2 ms\n"));
        runner.expect(ServerMessage.Ack.class);
        assertThat(get(logsPath(job), 200).get("entries")).hasSize(3);
    }

    @Test
    void onceTheJobEndedTheLogIsCompletedFromTheStoredOutput() throws Exception {
        ClaimedJob job = running();
        log(job, LogStream.STDOUT, "line 1\n");
        // The runner fell behind: a marker for what it did not send, then nothing more live.
        runner.send(
                RunnerMessage.Log.dropped(job.uuid(), job.lease(), ++seq, LogStream.STDOUT, 0, "line 2\n".length()));
        runner.expect(ServerMessage.Ack.class);
        String stdout = "line 1\nline 2\nline 3\n" + "x".repeat(40_000) + "\nlast\n";
        runner.send(new RunnerMessage.Completed(
                job.uuid(), job.lease(), List.of(new IterationResult(0, stdout, "err 1\n", Map.of()))));
        runner.expect(ServerMessage.Ack.class);

        JsonNode first = get(logsPath(job) + "?after=0", 200);
        List<JsonNode> entries = new ArrayList<>();
        first.get("entries").forEach(entries::add);
        assertThat(first.get("complete").asBoolean()).isTrue();
        assertThat(entries.get(0).get("text").asText()).isEqualTo("line 1\n");
        assertThat(entries.get(1).has("dropped"))
                .as("the marker's place shows the stored bytes once the job ended")
                .isFalse();
        assertThat(entries.get(1).get("text").asText()).isEqualTo("line 2\n");
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        for (int i = 0; i < entries.size(); i++) {
            JsonNode e = entries.get(i);
            assertThat(e.get("seq").asLong()).as("seqs without gaps").isEqualTo(i + 1);
            assertThat(e.get("text").asText().getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
                    .isLessThanOrEqualTo(RunnerMessage.Log.MAX_TEXT_BYTES);
            (e.get("stream").asText().equals("stdout") ? out : err)
                    .append(e.get("text").asText());
        }
        assertThat(out.toString())
                .as("what was shown live, the dropped bytes in the marker's place, then the rest of the stored output")
                .isEqualTo(stdout);
        assertThat(err.toString()).isEqualTo("err 1\n");
        assertThat(first.get("next").asLong()).isEqualTo(entries.size());
        assertThat(get(logsPath(job) + "?after=" + entries.size(), 200).get("entries"))
                .isEmpty();
    }

    @Test
    void badParametersAndUnknownJobsAreRefused() throws Exception {
        ClaimedJob job = running();
        assertThat(get(logsPath(job) + "?after=-1", 400).get("code").asText()).isEqualTo("invalid_parameter");
        assertThat(get(logsPath(job) + "?after=x", 400).get("code").asText()).isEqualTo("invalid_parameter");
        assertThat(get(logsPath(job) + "?follow=yes", 400).get("code").asText()).isEqualTo("invalid_parameter");
        assertThat(get("/v0/projects/bench/jobs/" + JobUuid.random() + "/logs", 404)
                        .get("code")
                        .asText())
                .isEqualTo("job_not_found");
        assertThat(get("/v0/projects/nope/jobs/" + job.uuid() + "/logs", 404)
                        .get("code")
                        .asText())
                .isEqualTo("project_not_found");
    }

    @Test
    void aFollowerReconnectsWithLastEventIdWithoutGapsOrRepeatsAndSeesTheEnd() throws Exception {
        ClaimedJob job = running();
        URI follow = URI.create(server.publicUrl() + logsPath(job) + "?follow=true");
        List<SseStream.Event> seen = new ArrayList<>();
        log(job, LogStream.STDOUT, "a\n");
        try (SseStream stream = SseStream.open(http, follow, admin, null)) {
            assertThat(stream.response.statusCode()).isEqualTo(200);
            assertThat(stream.response.headers().firstValue("Content-Type").orElse(""))
                    .startsWith("text/event-stream");
            seen.add(stream.next());
            log(job, LogStream.STDERR, "b\n"); // arrives while the follower waits
            seen.add(stream.next());
        } // the client goes away

        // More output while nobody follows.
        log(job, LogStream.STDOUT, "c\n");
        log(job, LogStream.STDOUT, "d\n");
        try (SseStream stream =
                SseStream.open(http, follow, admin, seen.get(seen.size() - 1).id())) {
            seen.add(stream.next());
            seen.add(stream.next());
            log(job, LogStream.STDOUT, "e\n");
            seen.add(stream.next());
            runner.send(new RunnerMessage.Completed(
                    job.uuid(),
                    job.lease(),
                    List.of(new IterationResult(0, "a\nc\nd\ne\nf (never streamed)\n", "b\n", Map.of()))));
            runner.expect(ServerMessage.Ack.class);
            SseStream.Event event;
            while ((event = stream.next()) != null) seen.add(event);
        }

        List<SseStream.Event> logs =
                seen.stream().filter(e -> e.event().equals("log")).toList();
        for (int i = 0; i < logs.size(); i++) {
            assertThat(logs.get(i).id())
                    .as("event ids count up by one: no gap, no repeat")
                    .isEqualTo(String.valueOf(i + 1));
            assertThat(Wire.mapper().readTree(logs.get(i).data()).get("seq").asLong())
                    .isEqualTo(i + 1);
        }
        List<String> texts = new ArrayList<>();
        for (var e : logs)
            texts.add(Wire.mapper().readTree(e.data()).get("text").asText());
        assertThat(texts).containsExactly("a\n", "b\n", "c\n", "d\n", "e\n", "f (never streamed)\n");
        SseStream.Event end = seen.get(seen.size() - 1);
        assertThat(end.event()).isEqualTo("end");
        assertThat(Wire.mapper().readTree(end.data()).get("status").asText()).isIn("completed", "processed");
        assertThat(end.id()).isNull();

        // Following an ended job replays the whole log and ends at once.
        List<SseStream.Event> replay = new ArrayList<>();
        try (SseStream stream = SseStream.open(http, follow, admin, null)) {
            SseStream.Event event;
            while ((event = stream.next()) != null) replay.add(event);
        }
        assertThat(replay).hasSize(logs.size() + 1);
        assertThat(replay.get(replay.size() - 1).event()).isEqualTo("end");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> get("/v0/projects/bench/jobs/" + job.uuid(), 200)
                        .get("status")
                        .asText()
                        .equals("processed"));
    }
}

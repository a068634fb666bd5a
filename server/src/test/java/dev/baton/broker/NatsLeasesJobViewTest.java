package dev.baton.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.BrokerSettings;
import dev.baton.protocol.message.Wire;
import dev.baton.web.http.TestServer;
import io.nats.client.Connection;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a seed-003 runner sends beside its outcome is shown in the API (issue 40): the progress of
 * its last Heartbeat on the job while it runs, and the artifacts and timings of its Complete on
 * the attempt. The whole server as {@code baton server} assembles it with transport A on, a real
 * nats-server, the runner's calls over HTTP with its key. (The store's part runs on both dialects
 * in {@link NatsLeasesContract}.)
 */
@Tag("nats")
class NatsLeasesJobViewTest {
    @TempDir
    Path dir;

    NatsServerProcess nats;
    TestServer server;
    Connection client;
    String runnerKey;

    @BeforeAll
    static void requireNats() {
        assumeTrue(
                NatsServerProcess.available(),
                "no nats-server at " + NatsServerProcess.BINARY + ": skipping transport A");
    }

    @BeforeEach
    void start() throws Exception {
        nats = new NatsServerProcess(dir.resolve("nats"));
        server = TestServer.assembled(
                dir.resolve("server"),
                TestServer.config(dir.resolve("server")).toBuilder()
                        .broker(new BrokerSettings(nats.url(), "websocket", Set.of("s1"), Duration.ofSeconds(120)))
                        .build());
        ok(server.post(
                "/v0/specs",
                Map.of(
                        "name",
                        "s1",
                        "slug",
                        "s1",
                        "architecture",
                        "x86_64",
                        "cpu",
                        1,
                        "memory",
                        1L << 30,
                        "disk",
                        1L << 30)));
        runnerKey = ok(server.post("/v0/runners", Map.of("name", "r1", "slug", "r1")))
                .path("key")
                .asText();
        ok(server.post("/v0/runners/r1/specs", Map.of("spec", "s1")));
        ok(server.post("/v0/organizations", Map.of("name", "acme", "slug", "acme", "plan", "team")));
        ok(server.post("/v0/projects", Map.of("name", "web", "slug", "web", "organization", "acme")));
        client = Nats.connect(nats.url());
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) client.close();
        if (server != null) server.close();
        if (nats != null) nats.close();
    }

    static JsonNode ok(TestServer.Response r) {
        assertThat(r.status()).as(r.text()).isBetween(200, 201);
        return r.json();
    }

    JsonNode runner(String what, Map<String, Object> body) {
        return ok(server.send("POST", "/v0/runners/r1/leases/" + what, body, runnerKey));
    }

    /** The lease routes exist only with transport A on: here every one of them is in openapi.json, and every documented one is routed. */
    @Test
    void theLeaseRoutesAreInTheOpenApiDocument() throws Exception {
        JsonNode doc = ok(server.get("/v0/openapi.json"));
        List<String> routed = server.server.routes().stream()
                .filter(r -> r.path().startsWith("/v0/runners/{runner}/leases/"))
                .map(r -> r.method().toLowerCase(java.util.Locale.ROOT) + " " + r.path())
                .toList();
        assertThat(routed)
                .containsExactlyInAnyOrder(
                        "get /v0/runners/{runner}/leases/subjects",
                        "post /v0/runners/{runner}/leases/ack",
                        "post /v0/runners/{runner}/leases/heartbeat",
                        "post /v0/runners/{runner}/leases/complete",
                        "post /v0/runners/{runner}/leases/cancel-ack",
                        "post /v0/runners/{runner}/leases/log");
        List<String> documented = new java.util.ArrayList<>();
        doc.path("paths").fields().forEachRemaining(p -> {
            if (p.getKey().startsWith("/v0/runners/{runner}/leases/"))
                p.getValue().fieldNames().forEachRemaining(m -> documented.add(m + " " + p.getKey()));
        });
        assertThat(documented).containsExactlyInAnyOrderElementsOf(routed);
        assertThat(doc.at("/paths/~1v0~1runners~1{runner}~1leases~1heartbeat/post/responses/200/description")
                        .asText())
                .contains("StaleLease is HTTP 200");
    }

    record Leased(String job, String lease) {}

    /** Submits a job and takes its LeaseGranted from the queue, as a seed runner would. */
    Leased leaseOfNewJob() throws Exception {
        String job = ok(server.post(
                        "/v0/run", Map.of("project", "web", "spec", "s1", "adapter", "raw", "cmd", List.of("bench"))))
                .path("job")
                .path("uuid")
                .asText();
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> client.jetStreamManagement().getStreamNames().contains(NatsBroker.STREAM));
        JetStreamSubscription sub = client.jetStream()
                .subscribe(NatsBroker.leaseSubject("s1"), PullSubscribeOptions.bind(NatsBroker.STREAM, "baton-s1"));
        List<Message> got = sub.fetch(1, Duration.ofSeconds(10));
        assertThat(got).hasSize(1);
        JsonNode granted = Wire.mapper().readTree(new String(got.getFirst().getData(), StandardCharsets.UTF_8));
        got.getFirst().ack();
        assertThat(granted.path("job_id").asText()).isEqualTo(job);
        return new Leased(job, granted.path("lease_id").asText());
    }

    @Test
    void aQueueRunnersLogChunksAreFollowedLiveAndTheLogIsWholeAtTheEnd() throws Exception {
        Leased leased = leaseOfNewJob();
        String job = leased.job();
        String lease = leased.lease();
        runner("ack", Map.of("type", "AckLease", "job_id", job, "lease_id", lease, "runner_id", "r1"));

        JsonNode first = runner(
                "log",
                Map.of("type", "LogChunk", "lease_id", lease, "seq", 1, "stream", "stdout", "text", "warming up\n"));
        assertThat(first.path("type").asText()).isEqualTo("LogAck");
        assertThat(first.path("seq").asLong()).isEqualTo(1);
        runner(
                "log",
                Map.of("type", "LogChunk", "lease_id", lease, "seq", 2, "stream", "stderr", "text", "cold cache\n"));
        runner(
                "log",
                Map.of("type", "LogChunk", "lease_id", lease, "seq", 2, "stream", "stderr", "text", "cold cache\n"));
        runner("log", Map.of("type", "LogChunk", "lease_id", lease, "seq", 3, "stream", "stdout", "dropped", 6));

        JsonNode live = ok(server.get("/v0/projects/web/jobs/" + job + "/logs"));
        assertThat(live.path("complete").asBoolean()).isFalse();
        assertThat(live.path("entries")).as("a resent chunk is kept once").hasSize(3);
        assertThat(live.at("/entries/0/text").asText()).isEqualTo("warming up\n");
        assertThat(live.at("/entries/1/stream").asText()).isEqualTo("stderr");
        assertThat(live.at("/entries/2/dropped").asLong()).isEqualTo(6);

        TestServer.Response both = server.send(
                "POST",
                "/v0/runners/r1/leases/log",
                Map.of("type", "LogChunk", "lease_id", lease, "seq", 4, "stream", "stdout", "text", "x", "dropped", 5),
                runnerKey);
        assertThat(both.status()).as(both.text()).isEqualTo(400);
        assertThat(both.json().path("code").asText()).isEqualTo("invalid_message");
        assertThat(both.json().path("message").asText()).isEqualTo("LogChunk: a dropped marker carries no text");
        TestServer.Response noStream = server.send(
                "POST",
                "/v0/runners/r1/leases/log",
                Map.of("type", "LogChunk", "lease_id", lease, "seq", 4, "text", "x"),
                runnerKey);
        assertThat(noStream.status()).as(noStream.text()).isEqualTo(400);

        runner(
                "complete",
                Map.of(
                        "type",
                        "Complete",
                        "lease_id",
                        lease,
                        "runner_id",
                        "r1",
                        "status",
                        "SUCCEEDED",
                        "exit_code",
                        0,
                        "results",
                        List.of(Map.of("exit_code", 0, "stdout", "warming up\nhot 1\n", "stderr", "cold cache\n"))));
        JsonNode whole = ok(server.get("/v0/projects/web/jobs/" + job + "/logs"));
        assertThat(whole.path("complete").asBoolean()).isTrue();
        assertThat(whole.at("/entries/2/text").asText())
                .as("the marker's bytes from the stored output")
                .isEqualTo("hot 1\n");
        JsonNode late = runner(
                "log", Map.of("type", "LogChunk", "lease_id", lease, "seq", 4, "stream", "stdout", "text", "late\n"));
        assertThat(late.path("type").asText())
                .as("a lease that is over writes nothing")
                .isEqualTo("StaleLease");
    }

    @Test
    void progressIsShownWhileTheJobRunsAndArtifactsAndTimingsOnItsAttempt() throws Exception {
        Leased leased = leaseOfNewJob();
        String job = leased.job();
        String lease = leased.lease();

        assertThat(runner("ack", Map.of("type", "AckLease", "job_id", job, "lease_id", lease, "runner_id", "r1"))
                        .path("type")
                        .asText())
                .isEqualTo("LeaseAccepted");
        JsonNode hb = runner(
                "heartbeat",
                Map.of(
                        "type",
                        "Heartbeat",
                        "lease_id",
                        lease,
                        "runner_id",
                        "r1",
                        "progress",
                        Map.of(
                                "percent",
                                35,
                                "current_step",
                                "bench --all",
                                "step_index",
                                0,
                                "message",
                                "Running benchmarks...")));
        assertThat(hb.path("type").asText()).isEqualTo("HeartbeatAck");

        JsonNode running = ok(server.get("/v0/projects/web/jobs/" + job));
        assertThat(running.path("status").asText()).isEqualTo("running");
        assertThat(running.at("/progress/percent").asInt()).isEqualTo(35);
        assertThat(running.at("/progress/current_step").asText()).isEqualTo("bench --all");
        assertThat(running.at("/progress/step_index").asInt()).isZero();
        assertThat(running.at("/progress/message").asText()).isEqualTo("Running benchmarks...");

        JsonNode done = runner(
                "complete",
                Map.of(
                        "type",
                        "Complete",
                        "lease_id",
                        lease,
                        "runner_id",
                        "r1",
                        "status",
                        "SUCCEEDED",
                        "exit_code",
                        0,
                        "timings",
                        Map.of("started_at", "2026-01-04T08:00:05Z", "finished_at", "2026-01-04T08:03:12Z"),
                        "artifacts",
                        List.of(
                                Map.of("type", "log", "uri", "s3://artifacts/runs/1/log.txt"),
                                Map.of("type", "junit", "uri", "s3://artifacts/runs/1/test.trx")),
                        "summary",
                        "All tests passed.",
                        "results",
                        List.of(Map.of("exit_code", 0, "stdout", "{}", "stderr", ""))));
        assertThat(done.path("accepted").asBoolean()).as(done.toString()).isTrue();

        JsonNode after = ok(server.get("/v0/projects/web/jobs/" + job));
        assertThat(after.has("progress"))
                .as("progress is shown only while the job runs")
                .isFalse();
        JsonNode attempt = after.path("attempts").get(0);
        assertThat(attempt.path("transport").asText()).isEqualTo("nats");
        assertThat(attempt.at("/artifacts/0/type").asText()).isEqualTo("log");
        assertThat(attempt.at("/artifacts/1/uri").asText()).isEqualTo("s3://artifacts/runs/1/test.trx");
        assertThat(attempt.at("/timings/started_at").asText()).isEqualTo("2026-01-04T08:00:05Z");
        assertThat(attempt.at("/timings/finished_at").asText()).isEqualTo("2026-01-04T08:03:12Z");
    }
}

package dev.baton.ojs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.ojs.OjsTestServer.Answer;
import dev.baton.server.testing.MutableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seed 002's worker protocol (issue 47) over real HTTP on SQLite and PostgreSQL: registration,
 * the seed's fetch and ack paths, the heartbeat's directed state and visibility timeout, an
 * operator's quiet and terminate, and a silent worker's jobs coming back at once.
 */
@Tag("postgres")
class OjsWorkerProtocolTest {
    /** Seed 002's registration, as it writes it. */
    private static final String REGISTER = "{\"worker_id\":\"worker-abc-123\",\"hostname\":\"web-01.example.com\","
            + "\"pid\":12345,\"queues\":[\"default\",\"emails\",\"payments\"],\"concurrency\":10,"
            + "\"labels\":[\"region:us-east-1\",\"pool:critical\"]}";

    private final MutableClock clock = new MutableClock(Instant.parse("2026-05-01T00:00:00Z"));

    @TempDir
    Path dataDir;

    OjsTestServer server;

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    private Answer call(String method, String path, String body) throws Exception {
        Answer a = server.call(method, path, body);
        assertThat(a.raw().headers().firstValue("OJS-Version")).contains("1.0");
        return a;
    }

    private Answer ok(String method, String path, String body) throws Exception {
        Answer a = call(method, path, body);
        assertThat(a.status()).as(method + " " + path + ": " + a.raw().body()).isEqualTo(200);
        return a;
    }

    private String push(String queue, int priority) throws Exception {
        return server.push("{\"type\":\"email.send\",\"args\":[1],\"options\":{\"queue\":\"" + queue
                + "\",\"priority\":" + priority + "}}");
    }

    /** Seed 002's fetch path; {@code body} without braces. */
    private JsonNode fetch(String body) throws Exception {
        return ok("POST", "/ojs/v1/jobs/fetch", "{" + body + "}").body().path("jobs");
    }

    private JsonNode heartbeat(String activeIds) throws Exception {
        return ok(
                        "POST",
                        "/ojs/v1/workers/heartbeat",
                        "{\"worker_id\":\"worker-abc-123\",\"state\":\"running\"," + "\"active_job_ids\":[" + activeIds
                                + "]}")
                .body();
    }

    /** The seed's "normal flow": register, fetch two, heartbeat, ack both; the worker shows what it registered. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aWorkerFollowsTheSeedsNormalFlow(String dialect) throws Exception {
        server = OjsTestServer.start(dialect, dataDir, clock);
        JsonNode registered = ok("POST", "/ojs/v1/workers/register", REGISTER).body();
        assertThat(registered.path("state").asText()).isEqualTo("running");
        assertThat(registered.path("visibility_timeout").asInt()).isEqualTo(1800);
        assertThat(registered.path("worker_id").asText()).isEqualTo("worker-abc-123");
        String job1 = push("emails", 0);
        String job2 = push("emails", 0);

        JsonNode jobs = fetch("\"queues\":[\"emails\"],\"count\":5,\"worker_id\":\"worker-abc-123\"");
        assertThat(jobs).extracting(j -> j.path("id").asText()).containsExactly(job1, job2);
        JsonNode beat = heartbeat("\"" + job1 + "\",\"" + job2 + "\"");
        assertThat(beat.path("state").asText()).isEqualTo("running");
        assertThat(beat.path("visibility_timeout").asInt()).isEqualTo(1800);

        JsonNode worker =
                ok("GET", "/ojs/v1/workers/worker-abc-123", null).body().path("worker");
        assertThat(worker.path("hostname").asText()).isEqualTo("web-01.example.com");
        assertThat(worker.path("pid").asInt()).isEqualTo(12345);
        assertThat(worker.path("concurrency").asInt()).isEqualTo(10);
        assertThat(worker.path("queues")).extracting(JsonNode::asText).containsExactly("default", "emails", "payments");
        assertThat(worker.path("labels"))
                .extracting(JsonNode::asText)
                .containsExactly("region:us-east-1", "pool:critical");
        assertThat(worker.path("state").asText()).isEqualTo("running");
        assertThat(worker.path("active_jobs").asInt()).isEqualTo(2);
        assertThat(worker.path("active_job_ids")).extracting(JsonNode::asText).containsExactly(job1, job2);

        String ack = "{\"worker_id\":\"worker-abc-123\",\"result\":{\"ok\":true}}";
        assertThat(ok("POST", "/ojs/v1/jobs/" + job1 + "/ack", ack)
                        .body()
                        .path("state")
                        .asText())
                .isEqualTo("completed");
        assertThat(ok("POST", "/ojs/v1/jobs/" + job2 + "/ack", null)
                        .body()
                        .path("state")
                        .asText())
                .as("the seed's ack needs no body")
                .isEqualTo("completed");
        assertThat(server.state(job1)).isEqualTo("completed");
        assertThat(ok("GET", "/ojs/v1/workers", null).body().path("workers"))
                .extracting(w -> w.path("worker_id").asText() + "/"
                        + w.path("active_jobs").asInt())
                .containsExactly("worker-abc-123/0");
    }

    /** The seed's and the 1.0 binding's paths are one handler: the same answer, and an unknown job is 404 on both. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite"})
    void theSeedsPathsAnswerAsTheBindings(String dialect) throws Exception {
        server = OjsTestServer.start(dialect, dataDir, clock);
        String a = push("q", 0);
        String b = push("q", 0);
        server.fetch("q", "w", 2);
        JsonNode viaBinding = ok("POST", "/ojs/v1/workers/ack", "{\"job_id\":\"" + a + "\",\"worker_id\":\"w\"}")
                .body();
        JsonNode viaSeed = ok("POST", "/ojs/v1/jobs/" + b + "/ack", "{\"worker_id\":\"w\"}")
                .body();
        assertThat(viaSeed.properties().stream().map(e -> e.getKey()).toList())
                .containsExactlyInAnyOrderElementsOf(
                        viaBinding.properties().stream().map(e -> e.getKey()).toList());
        assertThat(call("POST", "/ojs/v1/jobs/nope/ack", "{}").status()).isEqualTo(404);
        assertThat(call("POST", "/ojs/v1/workers/ack", "{\"job_id\":\"nope\"}").status())
                .isEqualTo(404);
    }

    /** Baton's own API lists the same workers as the binding (issue 47), for the admin only. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite"})
    void batonsApiListsTheWorkersTheBindingLists(String dialect) throws Exception {
        server = OjsTestServer.start(dialect, dataDir, clock);
        ok("POST", "/ojs/v1/workers/register", REGISTER);
        Answer v0 = server.call("GET", "/v0/ojs/workers", null);
        assertThat(v0.status()).as(v0.raw().body()).isEqualTo(200);
        assertThat(v0.raw().headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(v0.body().path("workers")).hasSize(1);
        assertThat(v0.body().path("workers"))
                .isEqualTo(ok("GET", "/ojs/v1/workers", null).body().path("workers"));
        Answer anonymous = server.call("GET", "/v0/ojs/workers", null, null);
        assertThat(anonymous.status()).isEqualTo(401);
        assertThat(anonymous.body().path("code").asText()).isNotEmpty();
    }

    /** Queues are consumed in the order the worker gives them, whatever the priorities across queues. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite"})
    void queuesAreConsumedInTheOrderGiven(String dialect) throws Exception {
        server = OjsTestServer.start(dialect, dataDir, clock);
        String low = push("critical", 0);
        String high = push("default", 100);
        JsonNode first = fetch("\"queues\":[\"critical\",\"default\"],\"count\":1");
        assertThat(first).extracting(j -> j.path("id").asText()).containsExactly(low);
        JsonNode second = fetch("\"queues\":[\"critical\",\"default\"],\"count\":5");
        assertThat(second).extracting(j -> j.path("id").asText()).containsExactly(high);
    }

    /** The default reservation is the seed's 30 minutes: still the worker's at 29, back in its queue at 30. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite"})
    void aReservationLastsTheSeedsThirtyMinutes(String dialect) throws Exception {
        server = OjsTestServer.start(dialect, dataDir, clock);
        String id = push("q", 0);
        server.fetch("q", "w");
        clock.advance(Duration.ofMinutes(29));
        assertThat(server.state(id)).isEqualTo("active");
        clock.advance(Duration.ofMinutes(1));
        assertThat(server.state(id)).isEqualTo("available");
    }

    /** An operator quiets a worker, then terminates a queue's workers: the next heartbeat answers carry it; audited. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void quietAndTerminateReachTheWorkerThroughItsHeartbeat(String dialect) throws Exception {
        server = OjsTestServer.start(dialect, dataDir, clock);
        ok("POST", "/ojs/v1/workers/register", REGISTER);
        ok("POST", "/ojs/v1/workers/register", "{\"worker_id\":\"other\",\"queues\":[\"reports\"]}");
        String id = push("emails", 0);

        JsonNode quiet =
                ok("POST", "/ojs/v1/workers/worker-abc-123/quiet", "{}").body().path("worker");
        assertThat(quiet.path("directed_state").asText()).isEqualTo("quiet");
        assertThat(heartbeat("").path("state").asText()).isEqualTo("quiet");
        assertThat(fetch("\"queues\":[\"emails\"],\"worker_id\":\"worker-abc-123\""))
                .as("a quieted worker is handed nothing")
                .isEmpty();
        assertThat(server.state(id)).isEqualTo("available");

        JsonNode byQueue =
                ok("POST", "/ojs/v1/queues/payments/workers/terminate", "{}").body();
        assertThat(byQueue.path("workers")).extracting(JsonNode::asText).containsExactly("worker-abc-123");
        assertThat(heartbeat("").path("state").asText()).isEqualTo("terminate");
        assertThat(ok("GET", "/ojs/v1/workers/other", null)
                        .body()
                        .path("worker")
                        .path("directed_state")
                        .isNull())
                .as("another queue's worker")
                .isTrue();

        ok("POST", "/ojs/v1/workers/worker-abc-123/resume", "{}");
        assertThat(heartbeat("").path("state").asText()).isEqualTo("running");

        Answer unknown = call("POST", "/ojs/v1/workers/nobody/quiet", "{}");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body().path("error").path("code").asText()).isEqualTo("not_found");
        assertThat(server.call("POST", "/ojs/v1/workers/other/terminate", "{}", "wrong")
                        .status())
                .isEqualTo(401);
        assertThat(ok("GET", "/ojs/v1/workers/other", null)
                        .body()
                        .path("worker")
                        .path("directed_state")
                        .isNull())
                .as("a refused direction changes nothing")
                .isTrue();

        String audit = server.call("GET", "/v0/audit", null).raw().body();
        assertThat(audit).contains("ojs.worker.quiet", "ojs.queue_workers.terminate", "ojs.worker.resume");
    }

    /**
     * A worker silent for its heartbeat timeout (30 s) is terminated and its jobs are available at
     * once, not after the 30-minute reservation; it is then refused until it registers again.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aSilentWorkerIsTerminatedAndItsJobsComeBackAtOnce(String dialect) throws Exception {
        server = OjsTestServer.start(dialect, dataDir, clock);
        ok("POST", "/ojs/v1/workers/register", REGISTER);
        String id = push("emails", 0);
        String kept = push("emails", 0);
        fetch("\"queues\":[\"emails\"],\"count\":2,\"worker_id\":\"worker-abc-123\"");
        ok("POST", "/ojs/v1/jobs/" + kept + "/ack", "{\"worker_id\":\"worker-abc-123\"}");

        clock.advance(Duration.ofSeconds(29));
        heartbeat("\"" + id + "\"");
        clock.advance(Duration.ofSeconds(29));
        assertThat(server.state(id)).as("a beat keeps it alive").isEqualTo("active");
        clock.advance(Duration.ofSeconds(1));
        assertThat(server.state(id)).isEqualTo("available");
        assertThat(server.state(kept)).isEqualTo("completed");
        JsonNode worker =
                ok("GET", "/ojs/v1/workers/worker-abc-123", null).body().path("worker");
        assertThat(worker.path("state").asText()).isEqualTo("terminated");
        assertThat(worker.path("terminated_reason").asText()).isEqualTo("heartbeat_timeout");

        Answer beat = call(
                "POST",
                "/ojs/v1/workers/heartbeat",
                "{\"worker_id\":\"worker-abc-123\",\"active_job_ids\":[\"" + id + "\"]}");
        assertThat(beat.status()).isEqualTo(409);
        assertThat(beat.body().path("error").path("code").asText()).isEqualTo("worker_terminated");
        Answer ack = call("POST", "/ojs/v1/jobs/" + id + "/ack", "{\"worker_id\":\"worker-abc-123\"}");
        assertThat(ack.body().path("error").path("code").asText()).isEqualTo("worker_terminated");
        assertThat(server.state(id)).as("a refused ack changes nothing").isEqualTo("available");
        assertThat(call("POST", "/ojs/v1/workers/worker-abc-123/quiet", "{}").status())
                .isEqualTo(409);

        ok("POST", "/ojs/v1/workers/register", REGISTER);
        assertThat(fetch("\"queues\":[\"emails\"],\"worker_id\":\"worker-abc-123\""))
                .extracting(j -> j.path("id").asText())
                .containsExactly(id);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite"})
    void aBadRegistrationIsRefusedAndChangesNothing(String dialect) throws Exception {
        server = OjsTestServer.start(dialect, dataDir, clock);
        for (String bad : new String[] {
            "{\"worker_id\":\"w\",\"concurrency\":0}",
            "{\"worker_id\":\"w\",\"queues\":\"q\"}",
            "{\"worker_id\":\"w\",\"pid\":\"x\"}",
            "{\"worker_id\":\"w\",\"heartbeat_timeout_ms\":10}"
        }) {
            Answer a = call("POST", "/ojs/v1/workers/register", bad);
            assertThat(a.status()).as(bad).isEqualTo(400);
            assertThat(a.body().path("error").path("code").asText()).isEqualTo("invalid_request");
        }
        assertThat(ok("GET", "/ojs/v1/workers", null).body().path("workers")).isEmpty();
        assertThat(call("GET", "/ojs/v1/workers/w", null).status()).isEqualTo(404);
    }

    /** Issue 47: a worker written from the seed alone, outside Baton's Java code (a script), runs the normal flow. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite"})
    void aWorkerScriptWrittenFromTheSeedAloneRunsTheNormalFlow(String dialect) throws Exception {
        Path script = Path.of(
                OjsWorkerProtocolTest.class.getResource("/ojs/seed_worker.py").toURI());
        Assumptions.assumeTrue(pythonPresent(), "python3 not on PATH: skipping");
        server = OjsTestServer.start(dialect, dataDir, clock);
        String job1 = push("emails", 0);
        String job2 = push("emails", 0);
        String token = Files.readString(dataDir.resolve("admin-token")).strip();
        String base = "http://127.0.0.1:" + server.port();
        Process p = new ProcessBuilder("python3", script.toString(), base, token, "emails")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out)
                .contains("register ok", "fetch 2 ok", "heartbeat ok", "ack " + job1 + " ok", "ack " + job2 + " ok");
        assertThat(server.state(job1)).isEqualTo("completed");
        assertThat(server.state(job2)).isEqualTo("completed");
    }

    private static boolean pythonPresent() {
        try {
            return new ProcessBuilder("python3", "--version").start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

package dev.baton.ojs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.ojs.OjsTestServer.Answer;
import dev.baton.server.testing.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OJS binding on the assembled server with a test clock: leases, back-off and schedules
 * move with the injected clock, never with real waiting. (The conformance suite is
 * {@link OjsConformanceTest}.)
 */
class OjsBindingTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-05-01T00:00:00Z"));

    @TempDir
    Path dataDir;

    OjsTestServer server;

    @BeforeEach
    void start() {
        server = OjsTestServer.start("sqlite", dataDir, clock);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Answer call(String method, String path, String body) throws Exception {
        return server.call(method, path, body);
    }

    private Answer call(String method, String path, String body, String token) throws Exception {
        return server.call(method, path, body, token);
    }

    private String push(String options) throws Exception {
        return server.push("{\"type\":\"t.x\",\"args\":[1],\"options\":" + options + "}");
    }

    private JsonNode fetch(String queue, String worker) throws Exception {
        return server.fetch(queue, worker);
    }

    private String state(String id) throws Exception {
        return server.state(id);
    }

    /**
     * The error history records the type each nack sent (else details.error_class, else the code):
     * what L1-RTR-014 checks, here with all three sources of the type.
     */
    @Test
    void theErrorHistoryKeepsTheTypeOfEachFailure() throws Exception {
        String id = push(
                "{\"queue\":\"h\",\"retry\":{\"max_attempts\":4,\"initial_interval\":\"PT1S\",\"backoff_coefficient\":1.0,\"jitter\":false}}");
        String[][] failures = {
            {"\"type\":\"ConnectionTimeout\",\"code\":\"handler_error\"", "timed out"},
            {"\"code\":\"handler_error\",\"details\":{\"error_class\":\"RateLimitExceeded\"}", "rate limit"},
            {"\"code\":\"handler_error\"", "null reference"}
        };
        for (String[] f : failures) {
            assertThat(fetch("h", "w1").path(0).path("id").asText()).isEqualTo(id);
            Answer nack = call(
                    "POST",
                    "/ojs/v1/workers/nack",
                    "{\"job_id\":\"" + id + "\",\"worker_id\":\"w1\",\"error\":{" + f[0] + ",\"message\":\"" + f[1]
                            + "\",\"retryable\":true}}");
            assertThat(nack.status()).as(nack.raw().body()).isEqualTo(200);
            clock.advance(Duration.ofSeconds(2));
        }
        JsonNode errors =
                call("GET", "/ojs/v1/jobs/" + id, null).body().path("job").path("errors");
        assertThat(errors).hasSize(3);
        assertThat(errors)
                .extracting(e -> e.path("type").asText())
                .containsExactly("ConnectionTimeout", "RateLimitExceeded", "handler_error");
        assertThat(errors)
                .extracting(e -> e.path("message").asText())
                .containsExactly("timed out", "rate limit", "null reference");
        assertThat(errors).extracting(e -> e.path("attempt").asInt()).containsExactly(1, 2, 3);
    }

    @Test
    void withoutTheAdminTokenNothingIsPushedOrFetched() throws Exception {
        String job = "{\"type\":\"t.x\",\"args\":[1]}";
        for (String token : new String[] {null, "wrong"}) {
            Answer refused = call("POST", "/ojs/v1/jobs", job, token);
            assertThat(refused.status()).isEqualTo(401);
            assertThat(refused.body().path("error").path("code").asText()).isEqualTo("unauthorized");
            assertThat(call("POST", "/ojs/v1/workers/fetch", "{\"queues\":[\"default\"]}", token)
                            .status())
                    .isEqualTo(401);
        }
        assertThat(fetch("default", "w1")).as("nothing was pushed").isEmpty();
        assertThat(call("GET", "/ojs/v1/health", null, null).status())
                .as("health stays open")
                .isEqualTo(200);
    }

    @Test
    void aMalformedPushGetsTheOjsErrorAndWritesNothing() throws Exception {
        Answer bad = call(
                "POST",
                "/ojs/v1/jobs/batch",
                "{\"jobs\":[{\"type\":\"ok.job\",\"args\":[]},{\"type\":\"Bad Type\",\"args\":[]}]}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body().path("error").path("code").asText()).isEqualTo("invalid_request");
        assertThat(bad.body().path("error").path("retryable").asBoolean(true)).isFalse();
        assertThat(bad.raw().headers().firstValue("OJS-Version")).contains("1.0");
        assertThat(call("POST", "/ojs/v1/jobs", "{not json")
                        .body()
                        .path("error")
                        .path("code")
                        .asText())
                .isEqualTo("invalid_payload");
        // The valid first job of the refused batch was not written either.
        assertThat(fetch("default", "w")).isEmpty();
        assertThat(server.store().ojs().counts()).isEmpty();
    }

    @Test
    void anExpiredLeaseReturnsTheJobAndOnlyTheHolderMayAck() throws Exception {
        String id = push("{\"visibility_timeout_ms\":3000}");
        assertThat(fetch("default", "w1").get(0).path("attempt").asInt()).isEqualTo(1);
        Answer notMine = call("POST", "/ojs/v1/workers/ack", "{\"job_id\":\"" + id + "\",\"worker_id\":\"w2\"}");
        assertThat(notMine.status()).isEqualTo(409);
        clock.advance(Duration.ofMillis(2000));
        call("POST", "/ojs/v1/workers/heartbeat", "{\"worker_id\":\"w1\",\"active_jobs\":[\"" + id + "\"]}");
        clock.advance(Duration.ofMillis(2000));
        assertThat(state(id)).as("the heartbeat moved the deadline").isEqualTo("active");
        clock.advance(Duration.ofMillis(1001));
        assertThat(state(id)).isEqualTo("available");
        JsonNode again = fetch("default", "w2").get(0);
        assertThat(again.path("attempt").asInt()).isEqualTo(2);
        assertThat(call("POST", "/ojs/v1/workers/ack", "{\"job_id\":\"" + id + "\",\"worker_id\":\"w2\"}")
                        .body()
                        .path("state")
                        .asText())
                .isEqualTo("completed");
    }

    @Test
    void retriesWaitTheirBackOffOnTheClockThenTheJobIsDiscarded() throws Exception {
        String id = push(
                "{\"retry\":{\"max_attempts\":2,\"initial_interval\":\"PT10S\",\"jitter\":false,\"on_exhaustion\":\"dead_letter\"}}");
        fetch("default", "w");
        Answer nack = call(
                "POST",
                "/ojs/v1/workers/nack",
                "{\"job_id\":\"" + id + "\",\"error\":{\"code\":\"boom\",\"message\":\"m\"}}");
        assertThat(nack.body().path("state").asText()).isEqualTo("retryable");
        assertThat(nack.body().path("retry_delay_ms").asLong()).isEqualTo(10_000);
        clock.advance(Duration.ofSeconds(9));
        assertThat(fetch("default", "w")).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(fetch("default", "w").get(0).path("attempt").asInt()).isEqualTo(2);
        nack = call(
                "POST",
                "/ojs/v1/workers/nack",
                "{\"job_id\":\"" + id + "\",\"error\":{\"code\":\"boom\",\"message\":\"m\"}}");
        assertThat(nack.body().path("state").asText()).isEqualTo("discarded");
        JsonNode dead = call("GET", "/ojs/v1/dead-letter", null).body().path("jobs");
        assertThat(dead.get(0).path("id").asText()).isEqualTo(id);
        assertThat(dead.get(0).path("errors")).hasSize(2);
    }

    @Test
    void aScheduledJobBecomesAvailableAtItsTimeAndAnExpiredOneIsDiscarded() throws Exception {
        String later = push("{\"queue\":\"s\",\"scheduled_at\":\"+PT60S\"}");
        String expiring = push("{\"queue\":\"e\",\"expires_at\":\"+PT5S\"}");
        assertThat(state(later)).isEqualTo("scheduled");
        assertThat(fetch("s", "w")).isEmpty();
        clock.advance(Duration.ofSeconds(60));
        assertThat(fetch("s", "w").get(0).path("id").asText()).isEqualTo(later);
        assertThat(fetch("e", "w")).isEmpty();
        assertThat(state(expiring)).isEqualTo("discarded");
    }

    @Test
    void anExecutionTimeoutFailsTheAttempt() throws Exception {
        String id = push("{\"timeout_ms\":2000,\"retry\":{\"max_attempts\":1}}");
        fetch("default", "w");
        clock.advance(Duration.ofMillis(2000));
        JsonNode job = call("GET", "/ojs/v1/jobs/" + id, null).body().path("job");
        assertThat(job.path("state").asText()).isEqualTo("discarded");
        assertThat(job.path("error").path("code").asText()).isEqualTo("timeout");
    }

    @Test
    void aMalformedWorkflowGetsTheOjsErrorAndWritesNothing() throws Exception {
        String good = "{\"type\":\"w.step\",\"args\":[]}";
        String[] bad = {
            "{\"type\":\"dag\",\"steps\":[" + good + "]}",
            "{\"type\":\"chain\",\"steps\":[]}",
            "{\"type\":\"group\"}",
            "{\"type\":\"chain\",\"steps\":[" + good + ",{\"type\":\"Bad Type\",\"args\":[]}]}",
            "{\"type\":\"group\",\"jobs\":[" + good + ",{\"type\":\"w.x\",\"args\":{}}]}",
            "{\"type\":\"chain\",\"steps\":[" + good + "],\"callbacks\":{\"on_complete\":" + good + "}}",
            "{\"type\":\"batch\",\"jobs\":[" + good + "],\"callbacks\":{\"on_complete\":{\"type\":\"w.cb\"}}}",
            "{\"type\":\"batch\",\"jobs\":[" + good + "],\"callbacks\":{\"on_whatever\":" + good + "}}",
        };
        for (String body : bad) {
            Answer a = call("POST", "/ojs/v1/workflows", body);
            assertThat(a.status()).as(body).isEqualTo(400);
            assertThat(a.body().path("error").path("code").asText()).as(body).isEqualTo("invalid_request");
            assertThat(a.body().path("error").path("message").asText()).as(body).isNotBlank();
            assertThat(a.raw().headers().firstValue("OJS-Version")).contains("1.0");
        }
        assertThat(call("POST", "/ojs/v1/workflows", "[1]")
                        .body()
                        .path("error")
                        .path("code")
                        .asText())
                .isEqualTo("invalid_payload");
        String sameId = "{\"id\":\"0190a000-0000-7000-8000-000000000001\",\"type\":\"w.step\",\"args\":[]}";
        Answer twice =
                call("POST", "/ojs/v1/workflows", "{\"type\":\"group\",\"jobs\":[" + sameId + "," + sameId + "]}");
        assertThat(twice.status()).as("one id twice").isEqualTo(409);
        assertThat(twice.body().path("error").path("code").asText()).isEqualTo("duplicate");
        assertThat(server.store().ojs().counts())
                .as("no job of a refused workflow was written")
                .isEmpty();
        assertThat(server.store().ojs().workflowsInState("running", null, 10)).isEmpty();
        assertThat(call("GET", "/ojs/v1/workflows/0190a000-0000-7000-8000-000000000000", null)
                        .status())
                .isEqualTo(404);
    }

    @Test
    void aChainHandsEachStepThePreviousResultAndStopsAtAFailure() throws Exception {
        Answer created = call(
                "POST",
                "/ojs/v1/workflows",
                "{\"type\":\"chain\",\"steps\":["
                        + "{\"type\":\"c.one\",\"args\":[1],\"options\":{\"queue\":\"c\"}},"
                        + "{\"type\":\"c.two\",\"args\":[2],\"options\":{\"queue\":\"c\",\"retry\":{\"max_attempts\":1}}},"
                        + "{\"type\":\"c.three\",\"args\":[3],\"options\":{\"queue\":\"c\"}}]}");
        assertThat(created.status()).isEqualTo(201);
        String wf = created.body().path("workflow").path("id").asText();
        JsonNode one = fetch("c", "w").get(0);
        assertThat(fetch("c", "w")).as("step two waits for step one").isEmpty();
        call("POST", "/ojs/v1/workers/ack", "{\"job_id\":\"" + one.path("id").asText() + "\",\"result\":{\"n\":41}}");
        JsonNode two = fetch("c", "w").get(0);
        assertThat(two.path("type").asText()).isEqualTo("c.two");
        assertThat(two.path("parent_results").get(0).path("n").asInt()).isEqualTo(41);
        assertThat(two.path("workflow_id").asText()).isEqualTo(wf);
        call(
                "POST",
                "/ojs/v1/workers/nack",
                "{\"job_id\":\"" + two.path("id").asText() + "\",\"error\":{\"code\":\"x\",\"message\":\"m\"}}");
        JsonNode workflow = call("GET", "/ojs/v1/workflows/" + wf, null).body().path("workflow");
        assertThat(workflow.path("state").asText()).isEqualTo("failed");
        assertThat(workflow.path("steps_completed").asInt()).isEqualTo(1);
        assertThat(workflow.path("steps").get(2).path("job_id").isNull())
                .as("step three never enqueued")
                .isTrue();
        assertThat(fetch("c", "w")).isEmpty();
        assertThat(call("DELETE", "/ojs/v1/workflows/" + wf, null).status())
                .as("a finished workflow is not cancelled")
                .isEqualTo(409);
    }

    @Test
    void aUniqueDuplicateInABatchRefusesTheWholeBatch() throws Exception {
        String unique = "\"unique\":{\"keys\":[\"type\",\"args\"]}";
        String first = push("{\"queue\":\"u\"," + unique + "}");
        Answer batch = call(
                "POST",
                "/ojs/v1/jobs/batch",
                "{\"jobs\":[{\"type\":\"t.y\",\"args\":[1],\"options\":{\"queue\":\"u\"}},"
                        + "{\"type\":\"t.x\",\"args\":[1],\"options\":{\"queue\":\"u\"," + unique + "}}]}");
        assertThat(batch.status()).isEqualTo(409);
        assertThat(batch.body().path("error").path("code").asText()).isEqualTo("duplicate");
        Answer twice = call(
                "POST",
                "/ojs/v1/jobs/batch",
                "{\"jobs\":[{\"type\":\"t.z\",\"args\":[],\"options\":{" + unique + "}},"
                        + "{\"type\":\"t.z\",\"args\":[],\"options\":{" + unique + "}}]}");
        assertThat(twice.status()).as("two of one key in one batch").isEqualTo(409);
        assertThat(server.store().ojs().counts()).containsOnlyKeys("u");
        assertThat(server.store().ojs().counts().get("u")).containsExactly(java.util.Map.entry("available", 1L));
        assertThat(state(first)).isEqualTo("available");
        Answer badPolicy = call(
                "POST",
                "/ojs/v1/jobs",
                "{\"type\":\"t.x\",\"args\":[],\"options\":{\"unique\":{\"on_conflict\":\"merge\"}}}");
        assertThat(badPolicy.status()).isEqualTo(400);
        assertThat(badPolicy.body().path("error").path("code").asText()).isEqualTo("invalid_request");
    }

    @Test
    void aReplacedUniqueJobIsCancelledWithAnEventAndPointsToItsReplacement() throws Exception {
        String policy = "\"unique\":{\"keys\":[\"type\"],\"on_conflict\":\"replace\"}";
        String old = push("{\"queue\":\"p\"," + policy + "}");
        String replacement = push("{\"queue\":\"p\"," + policy + "}");
        JsonNode cancelled = call("GET", "/ojs/v1/jobs/" + old, null).body().path("job");
        assertThat(cancelled.path("state").asText()).isEqualTo("cancelled");
        assertThat(cancelled.path("replaced_by").asText()).isEqualTo(replacement);
        JsonNode events =
                call("GET", "/ojs/v1/events?types=job.cancelled", null).body().path("events");
        assertThat(events).extracting(e -> e.path("subject").asText()).containsExactly(old);
        assertThat(fetch("p", "w")).extracting(j -> j.path("id").asText()).containsExactly(replacement);
    }

    @Test
    void aRateLimitedQueueHandsOutItsSlotsPerWindowOnTheClock() throws Exception {
        for (int i = 0; i < 3; i++) push("{\"queue\":\"r\",\"rate_limit\":{\"max_per_second\":2}}");
        Answer several = call("POST", "/ojs/v1/workers/fetch", "{\"queues\":[\"r\"],\"count\":3}");
        assertThat(several.body().path("jobs")).hasSize(2);
        clock.advance(Duration.ofMillis(999));
        assertThat(fetch("r", "w")).isEmpty();
        clock.advance(Duration.ofMillis(1));
        assertThat(fetch("r", "w")).hasSize(1);
        Answer bad = call(
                "POST",
                "/ojs/v1/jobs",
                "{\"type\":\"t.x\",\"args\":[],\"options\":{\"rate_limit\":{\"max_per_second\":0}}}");
        assertThat(bad.status()).isEqualTo(400);
    }

    @Test
    void aBeatExtendsTheLeasesOfTheJobsItNames() throws Exception {
        String id = push("{\"queue\":\"b\",\"visibility_timeout_ms\":3000}");
        fetch("b", "w1");
        clock.advance(Duration.ofMillis(2000));
        Answer beat = call(
                "POST",
                "/ojs/v1/workers/beat",
                "{\"worker_id\":\"w1\",\"state\":\"drain\",\"active_job_ids\":[\"" + id + "\"]}");
        assertThat(beat.body().path("jobs_extended"))
                .extracting(JsonNode::asText)
                .containsExactly(id);
        clock.advance(Duration.ofMillis(2000));
        assertThat(state(id)).as("the beat moved the deadline").isEqualTo("active");
        assertThat(call("POST", "/ojs/v1/workers/ack", "{\"job_id\":\"" + id + "\",\"worker_id\":\"w1\"}")
                        .status())
                .as("a draining worker still finishes its jobs")
                .isEqualTo(200);
    }

    @Test
    void aDrainingWorkerIsHandedNothingWhileOthersAre() throws Exception {
        push("{\"queue\":\"g\"}");
        Answer beat = call(
                "POST", "/ojs/v1/workers/beat", "{\"worker_id\":\"leaving\",\"state\":\"drain\",\"active_jobs\":1}");
        assertThat(beat.body().path("acknowledged").asBoolean()).isTrue();
        assertThat(fetch("g", "leaving")).isEmpty();
        Answer health = call("GET", "/ojs/v1/workers/leaving/health", null);
        assertThat(health.status()).isEqualTo(503);
        assertThat(health.body().path("state").asText()).isEqualTo("draining");
        assertThat(fetch("g", "staying")).hasSize(1);
        call("POST", "/ojs/v1/workers/beat", "{\"worker_id\":\"leaving\",\"state\":\"running\"}");
        assertThat(call("GET", "/ojs/v1/workers/leaving/health", null).status()).isEqualTo(200);
        assertThat(call("POST", "/ojs/v1/workers/beat", "{\"state\":\"drain\"}").status())
                .as("no worker_id")
                .isEqualTo(400);
        assertThat(call("POST", "/ojs/v1/workers/beat", "{\"worker_id\":\"x\",\"state\":\"asleep\"}")
                        .status())
                .isEqualTo(400);
        assertThat(call("GET", "/ojs/v1/workers/unknown/health", null).status()).isEqualTo(404);
    }

    @Test
    void theMetricsCountOjsJobsByQueueAndStateFromTheStore() throws Exception {
        push("{\"queue\":\"m\"}");
        push("{\"queue\":\"m\"}");
        fetch("m", "w");
        HttpResponse<String> metrics = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body())
                .contains("baton_ojs_jobs{queue=\"m\",state=\"available\"} 1.0")
                .contains("baton_ojs_jobs{queue=\"m\",state=\"active\"} 1.0")
                .contains("baton_ojs_jobs{queue=\"m\",state=\"completed\"} 0.0");
    }
}

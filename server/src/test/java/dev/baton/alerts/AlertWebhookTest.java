package dev.baton.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.baton.protocol.message.Wire;
import dev.baton.web.http.TestServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhooks end to end (docs/alerts.md, "Webhooks"): a local receiver gets each new alert with a
 * valid HMAC-SHA256 signature; a receiver that is down gets it later, after the backoff on the
 * server's clock; the delivery log says what happened; a malformed URL changes nothing.
 */
class AlertWebhookTest {
    static final Duration WAIT = Duration.ofSeconds(10);
    static final Instant T0 = Instant.parse("2025-12-01T00:00:00Z");

    @TempDir
    Path dir;

    TestServer s;
    HttpServer receiver;
    final List<Received> received = new CopyOnWriteArrayList<>();
    final AtomicInteger answer = new AtomicInteger(204);
    int runs;

    record Received(byte[] body, String signature, String delivery, String event) {}

    @BeforeEach
    void start() throws IOException {
        s = TestServer.assembled(dir, TestServer.config(dir));
        s.post("/v0/organizations", Map.of("name", "org", "slug", "org", "plan", "team"));
        s.post("/v0/projects", Map.of("name", "proj", "slug", "proj", "organization", "org"));
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            received.add(new Received(
                    body,
                    exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER),
                    exchange.getRequestHeaders().getFirst("X-Baton-Delivery"),
                    exchange.getRequestHeaders().getFirst("X-Baton-Event")));
            exchange.sendResponseHeaders(answer.get(), -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
        s.close();
    }

    String hookUrl() {
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    }

    JsonNode direct(String branch, double latency) {
        Instant end = T0.plus(Duration.ofHours(++runs));
        Map<String, Object> body = new HashMap<>(Map.of(
                "project",
                "proj",
                "branch",
                branch,
                "testbed",
                "box",
                "adapter",
                "json",
                "start_time",
                end.minusSeconds(1).toString(),
                "end_time",
                end.toString(),
                "results",
                List.of(Map.of("sort", Map.of("latency", Map.of("value", latency))))));
        TestServer.Response r = s.post("/v0/run", body);
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.json();
    }

    /** A threshold and main's history, then a run on {@code branch} (started from main) whose metric jumps: one alert. */
    String alertOn(String branch) {
        Map<String, Object> body = new HashMap<>(Map.of(
                "project",
                "proj",
                "branch",
                branch,
                "testbed",
                "box",
                "adapter",
                "json",
                "start_point",
                "main",
                "start_time",
                T0.plus(Duration.ofDays(1)).toString(),
                "end_time",
                T0.plus(Duration.ofDays(1)).toString(),
                "results",
                List.of(Map.of("sort", Map.of("latency", Map.of("value", 16))))));
        JsonNode run = s.post("/v0/run", body).json();
        assertThat(run.at("/report/alerts")).hasSize(1);
        return run.at("/report/alerts/0/uuid").asText();
    }

    void history() {
        assertThat(s.post(
                                "/v0/projects/proj/thresholds",
                                Map.of(
                                        "testbed",
                                        "box",
                                        "measure",
                                        "latency",
                                        "model",
                                        "t_test",
                                        "upper_boundary",
                                        0.95))
                        .status())
                .isEqualTo(201);
        for (double v : new double[] {10, 12, 11, 13, 14}) direct("main", v);
    }

    @Test
    void aReceiverGetsEachNewAlertSignedWithTheSecretShownOnce() {
        JsonNode created =
                s.post("/v0/projects/proj/webhooks", Map.of("url", hookUrl())).json();
        String secret = created.get("secret").asText();
        assertThat(secret).startsWith("whsec_");
        String webhook = created.at("/webhook/uuid").asText();
        assertThat(s.get("/v0/projects/proj/webhooks").text()).contains(webhook).doesNotContain(secret);
        history();

        String alert = alertOn("pr-1");

        await().atMost(WAIT).until(() -> received.size() == 1);
        Received r = received.getFirst();
        assertThat(r.signature())
                .as("HMAC-SHA256 of the exact body with the secret")
                .isEqualTo(WebhookSignature.of(secret, r.body()));
        assertThat(r.event()).isEqualTo("alert.created");
        JsonNode body = parse(r.body());
        assertThat(body.get("event").asText()).isEqualTo("alert.created");
        assertThat(body.at("/alert/uuid").asText()).isEqualTo(alert);
        assertThat(body.at("/alert/side").asText()).isEqualTo("upper");
        assertThat(body.at("/alert/baseline/size").asInt()).isEqualTo(5);
        JsonNode log = s.get("/v0/projects/proj/webhooks/" + webhook + "/deliveries")
                .json()
                .at("/deliveries/0");
        assertThat(log.get("alert").asText()).isEqualTo(alert);
        assertThat(log.get("event").asText()).isEqualTo("alert.created");
        assertThat(log.get("attempts").asInt()).isEqualTo(1);
        assertThat(log.get("last_status").asInt()).isEqualTo(204);
        assertThat(log.get("delivered").isNull()).isFalse();
        assertThat(log.get("next_attempt").isNull()).isTrue();
        assertThat(r.delivery()).isEqualTo(log.get("id").asText());
        // The group (issue 44): the alert's group, its size and the alert's place in it.
        assertThat(body.at("/alert/group").asText())
                .isEqualTo(body.at("/group/uuid").asText());
        assertThat(body.at("/group/alerts").asInt()).isEqualTo(1);
        assertThat(body.at("/group/index").asInt()).isEqualTo(1);
        assertThat(body.at("/group/branch").asText()).isEqualTo("pr-1");
        assertThat(body.at("/alert/triage").asText()).isEqualTo("untriaged");
        // The audit entry names the webhook it created (issue 44), never its secret.
        JsonNode audit = s.get("/v0/audit?action=webhook.created").json().at("/events/0");
        assertThat(audit.get("detail").toString()).contains(webhook).doesNotContain(secret);
    }

    @Test
    void aReceiverThatIsDownGetsTheAlertLaterAfterTheBackoff() {
        String webhook = s.post("/v0/projects/proj/webhooks", Map.of("url", hookUrl()))
                .json()
                .at("/webhook/uuid")
                .asText();
        history();
        answer.set(503);

        String alert = alertOn("pr-2");

        String deliveries = "/v0/projects/proj/webhooks/" + webhook + "/deliveries";
        await().atMost(WAIT)
                .until(() ->
                        s.get(deliveries).json().at("/deliveries/0/attempts").asInt() == 1);
        JsonNode failed = s.get(deliveries).json().at("/deliveries/0");
        assertThat(failed.get("last_status").asInt()).isEqualTo(503);
        assertThat(failed.get("last_error").asText()).contains("503");
        assertThat(failed.get("delivered").isNull()).isTrue();
        assertThat(Instant.parse(failed.get("next_attempt").asText()))
                .isEqualTo(s.clock.instant().plus(Duration.ofSeconds(10)));

        // Back up; nothing is sent before the backoff has passed on the server's clock.
        answer.set(200);
        s.clock.advance(Duration.ofSeconds(10));
        await().atMost(WAIT)
                .until(() ->
                        !s.get(deliveries).json().at("/deliveries/0/delivered").isNull());
        assertThat(received).hasSize(2);
        assertThat(parse(received.getLast().body()).at("/alert/uuid").asText()).isEqualTo(alert);
        assertThat(s.get(deliveries).json().at("/deliveries/0/attempts").asInt())
                .isEqualTo(2);
    }

    @Test
    void aMalformedUrlIsRefusedAndNothingIsStored() {
        for (String url :
                List.of("ftp://example.com/x", "not a url", "http:///nohost", "https://user:pw@example.com/")) {
            TestServer.Response r = s.post("/v0/projects/proj/webhooks", Map.of("url", url));
            assertThat(r.status()).as(url).isEqualTo(400);
            assertThat(r.json().get("field").asText()).isEqualTo("url");
        }
        assertThat(s.get("/v0/projects/proj/webhooks").json().get("webhooks")).isEmpty();
    }

    @Test
    void theBackoffDoublesUpToAnHour() {
        assertThat(WebhookSender.backoff(1)).isEqualTo(Duration.ofSeconds(10));
        assertThat(WebhookSender.backoff(2)).isEqualTo(Duration.ofSeconds(20));
        assertThat(WebhookSender.backoff(3)).isEqualTo(Duration.ofSeconds(40));
        assertThat(WebhookSender.backoff(11)).isEqualTo(Duration.ofHours(1));
    }

    static JsonNode parse(byte[] body) {
        try {
            return Wire.mapper().readTree(body);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}

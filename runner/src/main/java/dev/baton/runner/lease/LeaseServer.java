package dev.baton.runner.lease;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.value.RunnerKey;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The NATS transport's half that goes to the server: {@code AckLease}, {@code Heartbeat}, {@code Complete}
 * and {@code CancelAck} over HTTP(S) with the runner key (docs/protocol.md, "Transport A"), and
 * where to pull. Each call returns the server's answer, or throws {@link IOException} when the
 * server could not be reached or answered 5xx (worth retrying); a 4xx is an {@link Answer} with
 * its error code (never worth retrying as is).
 */
final class LeaseServer {
    private final HttpClient http;
    private final URI base;
    private final String runner;
    private final RunnerKey key;

    LeaseServer(HttpClient http, URI server, String runner, RunnerKey key) {
        this.http = http;
        String root = server.toString().endsWith("/") ? server.toString() : server + "/";
        this.base = URI.create(root + "v0/runners/" + URLEncoder.encode(runner, StandardCharsets.UTF_8) + "/leases/");
        this.runner = runner;
        this.key = key;
    }

    String runner() {
        return runner;
    }

    /**
     * One answer: {@code type} is the message type ({@code LeaseAccepted}, {@code HeartbeatAck},
     * {@code CompleteAck}, {@code StaleLease}, {@code LeaseSubjects}) or null for an HTTP error,
     * whose JSON error code is then {@code error}.
     */
    record Answer(int status, String type, String error, JsonNode body) {
        boolean is(String messageType) {
            return messageType.equals(type);
        }

        boolean stale() {
            return is("StaleLease");
        }
    }

    Answer subjects() throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(base.resolve("subjects")).GET());
    }

    Answer post(String what, Object message) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(base.resolve(what))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(message))));
    }

    private Answer send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                request.header("Authorization", "Bearer " + key.reveal())
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 500) throw new IOException("server answered " + r.statusCode() + ": " + r.body());
        JsonNode body;
        try {
            body = Wire.mapper().readTree(r.body());
        } catch (IOException notJson) {
            throw new IOException("server answered " + r.statusCode() + " with no JSON: " + r.body());
        }
        if (r.statusCode() / 100 != 2) {
            String code = body.path("code").asText(body.path("error").asText("http_" + r.statusCode()));
            return new Answer(r.statusCode(), null, code, body);
        }
        return new Answer(r.statusCode(), body.path("type").asText(null), null, body);
    }
}

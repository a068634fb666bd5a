package dev.baton.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.baton.protocol.message.Wire;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * JSON over java.net.http to a code host's REST API (docs/pull-requests.md): the host's own
 * headers on every request; an answer that is not 2xx is a {@link Failed} carrying its status.
 */
final class HostHttp {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);

    /** A request the host refused or that did not reach it ({@code status} null). */
    static final class Failed extends Exception {
        final Integer status;

        Failed(Integer status, String message) {
            super(message);
            this.status = status;
        }
    }

    private final HttpClient http;
    private final Map<String, String> headers;

    HostHttp(HttpClient http, Map<String, String> headers) {
        this.http = http;
        this.headers = headers;
    }

    /** Sends {@code body} (null: none) and returns the answer's JSON (missing when it has none). */
    JsonNode send(String method, String url, JsonNode body) throws Failed, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(REQUEST_TIMEOUT);
        headers.forEach(b::header);
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(Wire.encode(body)));
        }
        HttpResponse<String> answer;
        try {
            answer = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException | IllegalArgumentException e) {
            throw new Failed(
                    null, e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
        int status = answer.statusCode();
        if (status / 100 != 2) {
            String text = answer.body() == null ? "" : answer.body();
            throw new Failed(
                    status,
                    method + " " + URI.create(url).getPath() + " answered " + status
                            + (text.isBlank() ? "" : ": " + text.substring(0, Math.min(300, text.length()))));
        }
        try {
            return answer.body() == null || answer.body().isBlank()
                    ? MissingNode.getInstance()
                    : Wire.mapper().readTree(answer.body());
        } catch (IOException e) {
            return MissingNode.getInstance();
        }
    }
}

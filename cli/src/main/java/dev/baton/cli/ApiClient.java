package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** A small client of the /v0 API: JSON in, JSON out, server errors as {@link ClientException}. */
final class ApiClient {
    private final String base;
    private final String token;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    ApiClient(String base, String token) {
        this.base = base;
        this.token = token;
    }

    JsonNode get(String path) {
        return send("GET", path, null);
    }

    JsonNode post(String path, Object body) {
        return send("POST", path, body);
    }

    JsonNode patch(String path, Object body) {
        return send("PATCH", path, body);
    }

    JsonNode put(String path, Object body) {
        return send("PUT", path, body);
    }

    JsonNode delete(String path) {
        return send("DELETE", path, null);
    }

    /** A path segment (UUID or slug typed by a user), escaped. */
    static String seg(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** A query string of the non-null parameters, with a leading '?' when there are any. */
    static String query(Map<String, Object> params) {
        Map<String, Object> present = new LinkedHashMap<>();
        params.forEach((k, v) -> {
            if (v != null) present.put(k, v);
        });
        if (present.isEmpty()) return "";
        return "?"
                + present.entrySet().stream()
                        .map(e -> e.getKey() + "="
                                + URLEncoder.encode(String.valueOf(e.getValue()), StandardCharsets.UTF_8))
                        .collect(Collectors.joining("&"));
    }

    /** The base URL (no trailing slash), for messages that say where. */
    String base() {
        return base;
    }

    /**
     * Opens a Server-Sent Events stream and hands each event to {@code events} until the server
     * closes it or {@code events} returns false. {@code lastEventId} (may be null) resumes after
     * that event. Connection trouble is a {@link ServerUnreachableException}, a refusal a
     * {@link ClientException}, as for the JSON calls.
     */
    void events(String path, String lastEventId, java.util.function.Predicate<ServerSentEvent> events) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .GET()
                .header("Authorization", "Bearer " + token)
                .header("Accept", "text/event-stream")
                .timeout(Duration.ofSeconds(60));
        if (lastEventId != null) request.header("Last-Event-ID", lastEventId);
        HttpResponse<InputStream> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("interrupted");
        }
        try (InputStream body = response.body();
                BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            if (response.statusCode() >= 400)
                throw refusal(response.statusCode(), new String(body.readAllBytes(), StandardCharsets.UTF_8));
            ServerSentEvent.Parser parser = new ServerSentEvent.Parser();
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                ServerSentEvent event = parser.line(line);
                if (event != null && !events.test(event)) return;
            }
        } catch (IOException e) {
            throw unreachable(e);
        }
    }

    private ServerUnreachableException unreachable(IOException e) {
        if (e instanceof ConnectException) {
            return new ServerUnreachableException(
                    "cannot connect to " + base + " (is the server running? start it with ./baton up)");
        }
        return new ServerUnreachableException("request to " + base + " failed: "
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
    }

    /** A non-2xx answer as one line: the server's code, its message, and the field at fault. */
    private static ClientException refusal(int status, String body) {
        JsonNode json = null;
        try {
            json = body.isEmpty() ? null : Wire.mapper().readTree(body);
        } catch (IOException e) {
            // not JSON: the status alone says what happened
        }
        // The OJS binding (/ojs/v1) nests its error: {"error": {"code", "message", ...}} (docs/ojs.md).
        if (json != null && json.path("error").isObject()) json = json.get("error");
        String fallback = "http_" + status;
        String code = json == null ? fallback : json.path("code").asText(fallback);
        String message = json == null ? "" : json.path("message").asText("");
        String field = json == null || !json.has("field")
                ? ""
                : " (field " + json.path("field").asText() + ")";
        return new ClientException(status, code, code + (message.isEmpty() ? "" : ": " + message) + field);
    }

    private JsonNode send(String method, String path, Object body) {
        HttpRequest.BodyPublisher publisher = body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(Wire.encode(body));
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .method(method, publisher)
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("interrupted");
        }
        if (response.statusCode() >= 400) throw refusal(response.statusCode(), response.body());
        JsonNode json = null;
        if (!response.body().isEmpty()) {
            try {
                json = Wire.mapper().readTree(response.body());
            } catch (IOException e) {
                throw new ClientException(
                        response.statusCode(),
                        null,
                        "server answered " + response.statusCode() + " with a body that is not JSON");
            }
        }
        return json;
    }
}

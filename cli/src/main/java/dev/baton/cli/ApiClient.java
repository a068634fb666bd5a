package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.IOException;
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
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

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
        return "?" + present.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(String.valueOf(e.getValue()), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    private JsonNode send(String method, String path, Object body) {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
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
        } catch (ConnectException e) {
            throw new ClientException("cannot connect to " + base + " (is the server running? start it with ./baton up)");
        } catch (IOException e) {
            throw new ClientException("request to " + base + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("interrupted");
        }
        JsonNode json = null;
        if (!response.body().isEmpty()) {
            try {
                json = Wire.mapper().readTree(response.body());
            } catch (IOException e) {
                throw new ClientException("server answered " + response.statusCode() + " with a body that is not JSON");
            }
        }
        if (response.statusCode() >= 400) {
            String code = json == null ? "http_" + response.statusCode() : json.path("code").asText("http_" + response.statusCode());
            String message = json == null ? "" : json.path("message").asText("");
            String field = json == null || !json.has("field") ? "" : " (field " + json.path("field").asText() + ")";
            throw new ClientException(code + ": " + message + field);
        }
        return json;
    }
}

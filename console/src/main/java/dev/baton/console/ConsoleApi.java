package dev.baton.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import io.javalin.http.Context;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The console's actions (cancel, drain, archive, rotate) are calls to this server's own
 * {@code /v0} API over loopback, made with the signed-in viewer's token as the bearer token: they
 * pass exactly the checks, validation and side effects a CLI call passes, and a scoped token
 * (issue 20) can do on the console only what it can do on the API.
 */
final class ConsoleApi implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The API's answer: its status and JSON body (null when empty or not JSON). */
    record Answer(int status, JsonNode body) {
        boolean ok() {
            return status / 100 == 2;
        }

        /** The API error's message, as the CLI would print it. */
        String message() {
            if (body == null) return "HTTP " + status;
            JsonNode m = body.path("error").path("message");
            if (m.isMissingNode()) m = body.path("message");
            return m.isMissingNode() ? "HTTP " + status : m.asText();
        }
    }

    Answer call(Context ctx, String method, String path, Object body, String token)
            throws IOException, InterruptedException {
        HttpRequest.BodyPublisher publisher = body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(Wire.encode(body));
        HttpRequest request = HttpRequest.newBuilder(URI.create(selfUrl(ctx) + path))
                .timeout(TIMEOUT)
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .method(method, publisher)
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        JsonNode json = null;
        try {
            if (!response.body().isBlank()) json = Wire.mapper().readTree(response.body());
        } catch (IOException notJson) {
            // the message falls back to the status
        }
        return new Answer(response.statusCode(), json);
    }

    /** One path segment of a /v0 URL, percent-encoded (a space as %20, not +). */
    static String segment(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8)
                .replace("+", "%20");
    }

    /** This server as the request reached it (its own socket), never the public URL, which may be a proxy. */
    private static String selfUrl(Context ctx) {
        String host = ctx.req().getLocalAddr();
        if (host.contains(":") && !host.startsWith("[")) host = "[" + host + "]";
        return "http://" + host + ":" + ctx.req().getLocalPort();
    }

    @Override
    public void close() {
        http.close();
    }
}

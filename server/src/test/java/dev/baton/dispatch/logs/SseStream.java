package dev.baton.dispatch.logs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/** A real HTTP client reading a Server-Sent Events stream event by event, as a browser's EventSource would. */
final class SseStream implements AutoCloseable {
    record Event(String id, String event, String data) {}

    final HttpResponse<InputStream> response;
    private final BufferedReader reader;

    private SseStream(HttpResponse<InputStream> response) {
        this.response = response;
        this.reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    }

    static SseStream open(HttpClient http, URI uri, String bearer, String lastEventId)
            throws IOException, InterruptedException {
        var b = HttpRequest.newBuilder(uri)
                .header("Authorization", "Bearer " + bearer)
                .header("Accept", "text/event-stream");
        if (lastEventId != null) b.header("Last-Event-ID", lastEventId);
        return new SseStream(http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream()));
    }

    /** The next event (comments skipped), or null when the server closed the stream. */
    Event next() {
        String id = null;
        String event = null;
        StringBuilder data = null;
        try {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isEmpty()) {
                    if (event != null || data != null)
                        return new Event(id, event == null ? "message" : event, data == null ? "" : data.toString());
                    continue;
                }
                if (line.startsWith(":")) continue;
                int colon = line.indexOf(':');
                String field = colon < 0 ? line : line.substring(0, colon);
                String value = colon < 0 ? "" : line.substring(colon + 1).replaceFirst("^ ", "");
                switch (field) {
                    case "id" -> id = value;
                    case "event" -> event = value;
                    case "data" ->
                        data = data == null
                                ? new StringBuilder(value)
                                : data.append('\n').append(value);
                    default -> {}
                }
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Disconnects, as a client that goes away mid-stream. */
    @Override
    public void close() {
        try {
            response.body().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

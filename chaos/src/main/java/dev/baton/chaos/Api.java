package dev.baton.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

/**
 * The suite's client of the {@code /v0} REST API: straight to a node (not through the faulty
 * balancer, which is for runners). A request a node refused to connect was never sent, so it is
 * tried on the next node; one that failed after sending has an unknown outcome, which only the
 * caller can judge ({@link Uncertain}).
 */
final class Api {
    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Supplier<List<String>> nodes;
    private final String token;

    /** The request may or may not have been acted on: the connection failed after it was sent. */
    static final class Uncertain extends IOException {
        Uncertain(IOException cause) {
            super(cause.toString(), cause);
        }
    }

    /** The server answered with an error status. */
    static final class Refused extends IOException {
        final int status;

        Refused(int status, String body) {
            super("HTTP " + status + ": " + body);
            this.status = status;
        }
    }

    /** @param nodes the URLs of the server nodes that are meant to be up (each call reads it afresh) */
    Api(Supplier<List<String>> nodes, String token) {
        this.nodes = nodes;
        this.token = token;
    }

    /** One request to the first node that accepts the connection. */
    JsonNode call(String method, String path, Object body) throws IOException, InterruptedException {
        List<String> urls = nodes.get();
        IOException last = new ConnectException("no server node is up");
        int start = (int) (System.nanoTime() % Math.max(1, urls.size()));
        for (int i = 0; i < urls.size(); i++) {
            String url = urls.get((start + i) % urls.size());
            try {
                return send(url, method, path, body);
            } catch (ConnectException | HttpConnectTimeoutException notSent) {
                last = notSent;
            }
        }
        throw last;
    }

    /** A read (or an idempotent write) retried across nodes and failures until {@code within} passes. */
    JsonNode retrying(String method, String path, Object body, Duration within)
            throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(within);
        while (true) {
            try {
                return call(method, path, body);
            } catch (Refused r) {
                if (r.status < 500 || Instant.now().isAfter(deadline)) throw r;
            } catch (IOException e) {
                if (Instant.now().isAfter(deadline)) throw e;
            }
            Thread.sleep(250);
        }
    }

    private JsonNode send(String url, String method, String path, Object body)
            throws IOException, InterruptedException {
        HttpRequest.BodyPublisher publisher = body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body));
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + path))
                .timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .method(method, publisher)
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException | HttpConnectTimeoutException notSent) {
            throw notSent;
        } catch (IOException e) {
            // The JDK reports a refused connection as a plain IOException whose cause is a ConnectException.
            if (e.getCause() instanceof ConnectException c) throw c;
            throw new Uncertain(e);
        }
        if (response.statusCode() >= 300) throw new Refused(response.statusCode(), response.body());
        return response.body().isEmpty() ? JSON.nullNode() : JSON.readTree(response.body());
    }

    /** Whether a node answers {@code GET /ready} with 200 (its database is reachable). */
    boolean ready(String url) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/ready"))
                    .timeout(Duration.ofSeconds(2))
                    .build();
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

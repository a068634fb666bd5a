package dev.baton.web.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.dispatch.JobEvents;
import dev.baton.protocol.message.Wire;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.MutableClock;
import dev.baton.store.Job;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real Baton server on 127.0.0.1, an ephemeral port and a fresh SQLite file, plus a real HTTP
 * client. Dispatch is replaced by a recorder of the job events the API emits.
 */
public final class TestServer implements AutoCloseable {
    public static final long MAX_BODY = 8 * 1024;
    public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    public final MutableClock clock;
    public final List<Job> submitted = new CopyOnWriteArrayList<>();
    public final List<Job> canceled = new CopyOnWriteArrayList<>();
    /** The jobs as they were before each cancel: their runner and lease, which dispatch needs. */
    public final List<Job> canceledBefore = new CopyOnWriteArrayList<>();

    public final BatonServer server;
    public final Path dataDir;
    public final String token;
    private final HttpClient http = HttpClient.newHttpClient();

    public TestServer(Path dataDir) {
        this(dataDir, null, new MutableClock(START));
    }

    /** On {@code databaseUrl} (null: SQLite in dataDir) and {@code clock}, which several servers of one test may share. */
    public TestServer(Path dataDir, String databaseUrl, MutableClock clock) {
        this(dataDir, config(dataDir, databaseUrl), false, clock);
    }

    /**
     * The whole server as {@code baton server} assembles it (runner channel, registry, OJS, real
     * dispatch) on {@code config}; {@link #submitted} and {@link #canceled} stay empty.
     */
    public static TestServer assembled(Path dataDir, ServerConfig config) {
        return new TestServer(dataDir, config, true, new MutableClock(START));
    }

    private TestServer(Path dataDir, ServerConfig config, boolean assembled, MutableClock clock) {
        this.dataDir = dataDir;
        this.clock = clock;
        BatonServer.Builder builder = assembled
                ? ServerAssembly.builder(config, clock)
                : BatonServer.builder(config).clock(clock).jobEvents(w -> new JobEvents() {
                    @Override
                    public void jobSubmitted(Job job) {
                        submitted.add(job);
                    }

                    @Override
                    public void jobCanceled(Job before, Job after) {
                        canceledBefore.add(before);
                        canceled.add(after);
                    }
                });
        this.server = builder.start();
        try {
            this.token = Files.readString(dataDir.resolve("admin-token")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #config(Path)} on another database (null: SQLite in dataDir). */
    public static ServerConfig config(Path dataDir, String databaseUrl) {
        return config(dataDir).toBuilder().databaseUrl(databaseUrl).build();
    }

    /** Defaults on 127.0.0.1, an ephemeral port, a small body limit and a generated admin token. */
    public static ServerConfig config(Path dataDir) {
        return ServerConfig.builder(dataDir)
                .host("127.0.0.1")
                .port(0)
                .requestBodyMaxBytes(MAX_BODY)
                .build();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    /** A response: status and body (JSON when there is one). */
    public record Response(int status, JsonNode json, String text) {
        public String code() {
            return json == null ? null : json.path("code").asText(null);
        }
    }

    public Response get(String path) {
        return send("GET", path, null, token);
    }

    public Response post(String path, Object body) {
        return send("POST", path, body, token);
    }

    public Response patch(String path, Object body) {
        return send("PATCH", path, body, token);
    }

    public Response delete(String path) {
        return send("DELETE", path, null, token);
    }

    /** {@code body}: null for none, a String sent as is, anything else encoded as JSON. */
    public Response send(String method, String path, Object body, String bearer) {
        HttpRequest.BodyPublisher publisher = body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body instanceof String s ? s : Wire.encode(body));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path)))
                .method(method, publisher)
                .header("Content-Type", "application/json");
        if (bearer != null) b.header("Authorization", "Bearer " + bearer);
        return send(b.build());
    }

    public Response send(HttpRequest request) {
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode json = null;
            if (!r.body().isEmpty()
                    && r.headers().firstValue("Content-Type").orElse("").startsWith("application/json")) {
                json = Wire.mapper().readTree(r.body());
            }
            return new Response(r.statusCode(), json, r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        // Idle keep-alive connections would hold up the server's graceful stop.
        http.shutdownNow();
        server.close();
    }
}

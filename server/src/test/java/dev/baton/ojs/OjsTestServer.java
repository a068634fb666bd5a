package dev.baton.ojs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.TestDatabases;
import dev.baton.store.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The assembled server (127.0.0.1, a free port) on a test clock, on SQLite or a fresh PostgreSQL
 * schema, and its OJS door spoken over real HTTP with the admin token.
 */
final class OjsTestServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Answer(int status, JsonNode body, HttpResponse<String> raw) {}

    private final BatonServer server;
    private final String token;
    private final HttpClient http = HttpClient.newHttpClient();

    private OjsTestServer(BatonServer server, String token) {
        this.server = server;
        this.token = token;
    }

    /** {@code dialect} {@code sqlite} or {@code postgresql} (the test is skipped when PostgreSQL is not reachable). */
    static OjsTestServer start(String dialect, Path dataDir, Clock clock) {
        String databaseUrl = null;
        if (dialect.equals("postgresql")) {
            assumeTrue(
                    TestDatabases.postgresReachable(),
                    "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
            databaseUrl = TestDatabases.freshPostgresSchema();
        }
        ServerConfig config = ServerConfig.builder(dataDir)
                .host("127.0.0.1")
                .port(0)
                .databaseUrl(databaseUrl)
                .requestBodyMaxBytes(1 << 20)
                .maxRequeues(3)
                .build();
        BatonServer server = ServerAssembly.builder(config, clock).start();
        try {
            return new OjsTestServer(
                    server, Files.readString(dataDir.resolve("admin-token")).strip());
        } catch (IOException e) {
            server.close();
            throw new UncheckedIOException(e);
        }
    }

    Store store() {
        return server.store();
    }

    int port() {
        return server.port();
    }

    Answer call(String method, String path, String body) throws Exception {
        return call(method, path, body, token);
    }

    Answer call(String method, String path, String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Content-Type", "application/openjobspec+json");
        if (token != null) b.header("Authorization", "Bearer " + token);
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body().isBlank() ? null : JSON.readTree(r.body()), r);
    }

    /** Pushes one job (its whole envelope) that must be created; returns its id. */
    String push(String job) throws Exception {
        Answer a = call("POST", "/ojs/v1/jobs", job);
        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        return a.body().path("job").path("id").asText();
    }

    JsonNode fetch(String queue, String worker, int count) throws Exception {
        Answer a = call(
                "POST",
                "/ojs/v1/workers/fetch",
                "{\"queues\":[\"" + queue + "\"],\"worker_id\":\"" + worker + "\",\"count\":" + count + "}");
        assertThat(a.status()).as(a.raw().body()).isEqualTo(200);
        return a.body().path("jobs");
    }

    JsonNode fetch(String queue, String worker) throws Exception {
        return fetch(queue, worker, 1);
    }

    Answer ack(String jobId, String worker) throws Exception {
        return call("POST", "/ojs/v1/workers/ack", "{\"job_id\":\"" + jobId + "\",\"worker_id\":\"" + worker + "\"}");
    }

    JsonNode job(String id) throws Exception {
        return call("GET", "/ojs/v1/jobs/" + id, null).body().path("job");
    }

    String state(String id) throws Exception {
        return job(id).path("state").asText();
    }

    @Override
    public void close() {
        server.close();
    }
}

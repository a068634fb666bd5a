package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import dev.baton.server.BatonServer;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.StoreCalls;
import dev.baton.server.testing.TestDatabases;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.web.http.TestServer;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What one {@code POST /v0/run} reads from the store, counted on a real server over a real store
 * (issue 13): its project once per node, not once or twice per submission (docs/decisions/0019).
 */
@Tag("postgres")
class SubmissionReadsTest {
    @TempDir
    Path dir;

    final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();
    final HttpClient http = HttpClient.newHttpClient();
    BatonServer server;
    String admin;

    @AfterEach
    void stop() {
        http.shutdownNow();
        if (server != null) server.close();
    }

    void start(String database) throws IOException {
        String url = null;
        if (database.equals("postgresql")) {
            assumeTrue(TestDatabases.postgresReachable(), "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL);
            url = TestDatabases.freshPostgresSchema();
        }
        Store real = StoreFactory.open(url == null ? "sqlite:" + dir.resolve("baton.db") : url, dir);
        Store counting = StoreCalls.intercept(real, (target, method, args) -> {
            reads.computeIfAbsent(method.getName(), k -> new AtomicInteger()).incrementAndGet();
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
        server = BatonServer.builder(TestServer.config(dir, url))
                .clock(new MutableClock(Instant.parse("2026-01-01T00:00:00Z")))
                .store(counting)
                .start();
        admin = Files.readString(dir.resolve("admin-token")).strip();
    }

    JsonNode send(String method, String path, Object body, String bearer, int status) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                    .method(method, HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + bearer);
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
            return Wire.mapper().readTree(r.body());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    int projectReads() {
        return reads.getOrDefault("findProject", new AtomicInteger()).get();
    }

    Map<String, Object> run(String project) {
        return Map.of("project", project, "spec", "small", "cmd", List.of("true"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aTokenHoldersSubmissionsReadTheirProjectOnceAndAreStillCheckedEachTime(String database) throws IOException {
        start(database);
        send("POST", "/v0/organizations", Map.of("name", "acme", "slug", "acme", "plan", "team"), admin, 201);
        JsonNode web =
                send("POST", "/v0/projects", Map.of("name", "web", "slug", "web", "organization", "acme"), admin, 201);
        send("POST", "/v0/projects", Map.of("name", "other", "slug", "other", "organization", "acme"), admin, 201);
        send(
                "POST",
                "/v0/specs",
                Map.of(
                        "name",
                        "small",
                        "slug",
                        "small",
                        "architecture",
                        "x86_64",
                        "cpu",
                        1,
                        "memory",
                        1L << 30,
                        "disk",
                        1L << 30),
                admin,
                201);
        send("POST", "/v0/users", Map.of("name", "ann"), admin, 201);
        send("PUT", "/v0/projects/web/members/ann", Map.of("role", "submitter"), admin, 200);
        String token = send(
                        "POST", "/v0/tokens", Map.of("user", "ann", "role", "submitter", "project", "web"), admin, 201)
                .path("secret")
                .asText();

        int before = projectReads();
        send("POST", "/v0/run", run("web"), token, 201);
        assertThat(projectReads() - before)
                .as("the access check and validation share one read")
                .isEqualTo(1);
        send("POST", "/v0/run", run("web"), token, 201);
        send("POST", "/v0/run", run(web.path("uuid").asText()), token, 201);
        send("POST", "/v0/run", run("web"), admin, 201);
        assertThat(projectReads() - before)
                .as("then by slug from memory; by uuid read once")
                .isEqualTo(2);

        // Access is decided on each request's memberships: a project known to this node but not
        // the caller's is refused as missing, and a removed membership counts at once.
        send("POST", "/v0/run", run("other"), admin, 201);
        send("POST", "/v0/run", run("other"), token, 404);
        send("DELETE", "/v0/projects/web/members/ann", Map.of(), admin, 204);
        send("POST", "/v0/run", run("web"), token, 404);

        // A project unknown at first is found once it exists (only found projects are kept).
        send("POST", "/v0/run", run("late"), admin, 404);
        send("POST", "/v0/projects", Map.of("name", "late", "slug", "late", "organization", "acme"), admin, 201);
        send("POST", "/v0/run", run("late"), admin, 201);
    }
}

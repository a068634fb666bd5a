package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.TestImages;
import dev.baton.server.testing.TestRunner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The whole assembled server (API, runner channel, registry, console) on 127.0.0.1 with an
 * organization "acme", a project "bench" and a spec "small", driven over HTTP like a user would:
 * the console tests set up runners and jobs through the /v0 API and a protocol-speaking runner.
 */
final class ConsoleServer implements AutoCloseable {
    final MutableClock clock = MutableClock.startingNow();
    final HttpClient http = HttpClient.newHttpClient();
    BatonServer server;
    final String admin;
    final Path dataDir;
    final String project;

    final int requestBodyMaxBytes;

    ConsoleServer(Path dataDir) throws Exception {
        this(dataDir, 1 << 20);
    }

    /** With room for runner messages up to {@code requestBodyMaxBytes} (a job's whole output in one message). */
    ConsoleServer(Path dataDir, int requestBodyMaxBytes) throws Exception {
        this.dataDir = dataDir;
        this.requestBodyMaxBytes = requestBodyMaxBytes;
        server = start(0);
        admin = Files.readString(dataDir.resolve("admin-token")).strip();
        post("/v0/organizations", Map.of("name", "Acme", "slug", "acme", "plan", "team"), 201);
        project = post("/v0/projects", Map.of("name", "Bench", "slug", "bench", "organization", "acme"), 201)
                .get("uuid")
                .asText();
        post(
                "/v0/specs",
                Map.of(
                        "name",
                        "small",
                        "slug",
                        "small",
                        "architecture",
                        "x86_64",
                        "cpu",
                        2,
                        "memory",
                        1 << 30,
                        "disk",
                        1L << 33),
                201);
    }

    private BatonServer start(int port) {
        ServerConfig config = ServerConfig.builder(dataDir)
                .host("127.0.0.1")
                .port(port)
                .requestBodyMaxBytes(requestBodyMaxBytes)
                .maxRequeues(3)
                .build();
        return ServerAssembly.builder(config, clock).start();
    }

    /** Stops the server and starts it again on the same port and data (a restart, as an operator does one). */
    void restart() {
        int port = server.port();
        server.close();
        server = start(port);
    }

    String url(String path) {
        return server.publicUrl() + path;
    }

    JsonNode post(String path, Object body, int expectedStatus) throws Exception {
        var response = http.send(
                HttpRequest.newBuilder(URI.create(url(path)))
                        .header("Authorization", "Bearer " + admin)
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(expectedStatus);
        return response.body().isEmpty() ? null : Wire.mapper().readTree(response.body());
    }

    JsonNode put(String path, Object body, int expectedStatus) throws Exception {
        var response = http.send(
                HttpRequest.newBuilder(URI.create(url(path)))
                        .header("Authorization", "Bearer " + admin)
                        .PUT(HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(expectedStatus);
        return response.body().isEmpty() ? null : Wire.mapper().readTree(response.body());
    }

    /** A user who is a viewer of project {@code slug}, and a token of theirs scoped to it (issue 20). */
    String viewerToken(String user, String slug) throws Exception {
        post("/v0/users", Map.of("name", user), 201);
        put("/v0/projects/" + slug + "/members/" + user, Map.of("role", "viewer"), 200);
        return post("/v0/tokens", Map.of("user", user, "project", slug, "role", "viewer"), 201)
                .get("secret")
                .asText();
    }

    /** A user with {@code role} on project {@code slug}, and a token of theirs scoped to it with that role. */
    String tokenWithRole(String user, String slug, String role) throws Exception {
        post("/v0/users", Map.of("name", user), 201);
        put("/v0/projects/" + slug + "/members/" + user, Map.of("role", role), 200);
        return post("/v0/tokens", Map.of("user", user, "project", slug, "role", role), 201)
                .get("secret")
                .asText();
    }

    /** Submits a run as the holder of {@code token}; returns the job's UUID. */
    String submitAs(String token) throws Exception {
        String image = TestImages.push(dataDir, ProjectUuid.parse(project), "", "v1", TestImages.BENCH);
        var response = http.send(
                HttpRequest.newBuilder(URI.create(url("/v0/run")))
                        .header("Authorization", "Bearer " + token)
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(Map.of(
                                "project",
                                "bench",
                                "image",
                                image,
                                "spec",
                                "small",
                                "adapter",
                                "json",
                                "cmd",
                                List.of("bench"),
                                "timeout",
                                120))))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("/v0/run: " + response.body()).isEqualTo(201);
        return Wire.mapper().readTree(response.body()).at("/job/uuid").asText();
    }

    JsonNode get(String path) throws Exception {
        var response = http.send(
                HttpRequest.newBuilder(URI.create(url(path)))
                        .header("Authorization", "Bearer " + admin)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return Wire.mapper().readTree(response.body());
    }

    /** A runner serving "small"; returns its slug and key. */
    String[] createRunner(String name) throws Exception {
        JsonNode created = post("/v0/runners", Map.of("name", name), 201);
        String slug = created.get("runner").get("slug").asText();
        post("/v0/runners/" + slug + "/specs", Map.of("spec", "small"), 201);
        return new String[] {slug, created.get("key").asText()};
    }

    TestRunner connect(String slug, String key) {
        return TestRunner.connect(
                URI.create(url("/v0/runners/" + slug + "/channel").replace("http://", "ws://")), key);
    }

    /** Submits a run of the test image on "small" as the holder of {@code token}, with {@code extra} fields (branch, testbed…); returns the job's UUID. */
    String run(String token, Map<String, Object> extra) throws Exception {
        String image = TestImages.push(dataDir, ProjectUuid.parse(project), "", "v1", TestImages.BENCH);
        Map<String, Object> body = new java.util.HashMap<>(Map.of(
                "project",
                "bench",
                "image",
                image,
                "spec",
                "small",
                "adapter",
                "json",
                "cmd",
                List.of("bench"),
                "timeout",
                120));
        body.putAll(extra);
        var response = http.send(
                HttpRequest.newBuilder(URI.create(url("/v0/run")))
                        .header("Authorization", "Bearer " + token)
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("/v0/run: " + response.body()).isEqualTo(201);
        return Wire.mapper().readTree(response.body()).at("/job/uuid").asText();
    }

    /** Submits a run of the test image on "small"; returns the job's UUID. */
    String submit() throws Exception {
        String image = TestImages.push(dataDir, ProjectUuid.parse(project), "", "v1", TestImages.BENCH);
        return post(
                        "/v0/run",
                        Map.of(
                                "project",
                                "bench",
                                "image",
                                image,
                                "spec",
                                "small",
                                "adapter",
                                "json",
                                "cmd",
                                List.of("bench"),
                                "timeout",
                                120),
                        201)
                .at("/job/uuid")
                .asText();
    }

    /** The runner says ready, a job is submitted, handed to it, and reported running; returns the claim. */
    ClaimedJob runningJobOn(TestRunner runner) throws Exception {
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        submit();
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        return claimed;
    }

    String status(String job) throws Exception {
        return get("/v0/projects/bench/jobs/" + job).get("status").asText();
    }

    @Override
    public void close() {
        http.shutdownNow();
        server.close();
    }
}

package dev.baton.dispatch.channel;

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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /v0/organizations/{o}/usage} per period (issue 41) on the assembled server, minutes
 * billed through the real channel on an injected clock that crosses midnight at the end of
 * January: the month by default, {@code from}/{@code to} as dates or instants with {@code to}
 * exclusive, per project; and the Prometheus counter by organization and project.
 */
class UsageRouteTest {
    @TempDir
    Path dataDir;

    final MutableClock clock = new MutableClock(Instant.parse("2026-01-31T23:57:00Z"));
    final HttpClient http = HttpClient.newHttpClient();
    BatonServer server;
    String admin;
    final Map<String, String> projects = new java.util.HashMap<>();

    @BeforeEach
    void start() throws Exception {
        server = ServerAssembly.builder(ServerConfig.defaults(dataDir).withListen("127.0.0.1", 0), clock)
                .start();
        admin = Files.readString(dataDir.resolve("admin-token")).strip();
        call("POST", "/v0/organizations", Map.of("name", "Acme", "slug", "acme", "plan", "team"), 201);
        for (String p : List.of("web", "api")) {
            projects.put(
                    p,
                    call("POST", "/v0/projects", Map.of("name", p, "slug", p, "organization", "acme"), 201)
                            .get("uuid")
                            .asText());
        }
        call(
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
                        2,
                        "memory",
                        1 << 30,
                        "disk",
                        1L << 33),
                201);
    }

    @AfterEach
    void stop() {
        http.shutdownNow();
        server.close();
    }

    JsonNode call(String method, String path, Object body, int status) throws Exception {
        var r = http.send(
                HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                        .header("Authorization", "Bearer " + admin)
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(status);
        return Wire.mapper().readTree(r.body());
    }

    JsonNode usage(String query) throws Exception {
        return call("GET", "/v0/organizations/acme/usage" + query, null, 200);
    }

    void submit(String project) throws Exception {
        String image = TestImages.push(dataDir, ProjectUuid.parse(projects.get(project)), "", "v1", TestImages.BENCH);
        call(
                "POST",
                "/v0/run",
                Map.of(
                        "project",
                        project,
                        "image",
                        image,
                        "spec",
                        "small",
                        "adapter",
                        "json",
                        "cmd",
                        List.of("bench"),
                        "timeout",
                        3600),
                201);
    }

    ClaimedJob run(TestRunner runner, String project) throws Exception {
        submit(project);
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        return claimed;
    }

    /**
     * A third of a minute passes (the runner must speak within its ready's 30 s); each running job
     * heartbeats, which bills its whole minutes at the clock's time.
     */
    void twentySeconds(TestRunner runner, List<ClaimedJob> jobs) {
        clock.advance(Duration.ofSeconds(20));
        for (ClaimedJob j : jobs) {
            runner.send(new RunnerMessage.Heartbeat(j.uuid(), j.lease()));
            runner.expect(ServerMessage.Ack.class);
        }
    }

    @Test
    void minutesArePerProjectPerPeriodTheMonthByDefaultAndCountedForPrometheus() throws Exception {
        JsonNode created = call("POST", "/v0/runners", Map.of("name", "box"), 201);
        call("POST", "/v0/runners/box/specs", Map.of("spec", "small"), 201);
        TestRunner runner = TestRunner.connect(
                URI.create(server.publicUrl().replace("http://", "ws://") + "/v0/runners/box/channel"),
                created.get("key").asText());
        try {
            runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
            ClaimedJob web = run(runner, "web"); // running from 23:57:00
            for (int i = 0; i < 6; i++)
                twentySeconds(runner, List.of(web)); // 23:59:00: web billed 2 minutes in January
            runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1)); // a second slot asks for work
            ClaimedJob api = run(runner, "api"); // running from 23:59:00
            // 00:00:00 on February 1: a minute each, billed at the first instant of February; 00:01:00: one more each.
            for (int i = 0; i < 6; i++) twentySeconds(runner, List.of(web, api));
        } finally {
            runner.crash();
        }

        JsonNode month = usage("");
        assertThat(month.get("from").asText()).isEqualTo("2026-02-01T00:00:00Z");
        assertThat(month.get("to").asText()).isEqualTo("2026-03-01T00:00:00Z");
        assertThat(month.get("minutes").asLong()).isEqualTo(4);
        assertThat(month.get("all_time_minutes").asLong()).isEqualTo(6);
        assertThat(minutesOf(month, "web")).isEqualTo(2);
        assertThat(minutesOf(month, "api")).isEqualTo(2);

        JsonNode january = usage("?from=2026-01-01&to=2026-02-01");
        assertThat(january.get("minutes").asLong()).isEqualTo(2);
        assertThat(january.get("projects")).hasSize(1);
        assertThat(minutesOf(january, "web")).isEqualTo(2);
        // One end alone: a calendar month from it, or up to it.
        assertThat(usage("?from=2026-01-01").get("to").asText()).isEqualTo("2026-02-01T00:00:00Z");
        assertThat(usage("?to=2026-02-01T00:00:00Z").get("from").asText()).isEqualTo("2026-01-01T00:00:00Z");
        // `to` is exclusive, `from` inclusive: the minutes billed at exactly 00:00:00 are February's.
        assertThat(usage("?from=2026-01-31T23:59:00Z&to=2026-02-01T00:00:00Z")
                        .get("minutes")
                        .asLong())
                .isEqualTo(1);
        assertThat(usage("?from=2026-02-01T00:00:00Z&to=2026-02-01T00:00:00.000001Z")
                        .get("minutes")
                        .asLong())
                .isEqualTo(2);

        assertThat(call("GET", "/v0/organizations/acme/usage?from=last-week", null, 400)
                        .get("code")
                        .asText())
                .isEqualTo("invalid_parameter");
        assertThat(call("GET", "/v0/organizations/acme/usage?from=2026-02-01&to=2026-01-01", null, 400)
                        .get("code")
                        .asText())
                .isEqualTo("invalid_parameter");
        assertThat(call("GET", "/v0/organizations/nobody/usage", null, 404)
                        .get("code")
                        .asText())
                .isEqualTo("organization_not_found");

        String metrics = http.send(
                        HttpRequest.newBuilder(URI.create(server.publicUrl() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics)
                .contains("baton_job_minutes_total{organization=\"acme\",project=\"web\"} 4.0")
                .contains("baton_job_minutes_total{organization=\"acme\",project=\"api\"} 2.0");
    }

    static long minutesOf(JsonNode usage, String project) {
        for (JsonNode p : usage.get("projects"))
            if (p.get("slug").asText().equals(project)) return p.get("minutes").asLong();
        throw new AssertionError("no project " + project + " in " + usage);
    }
}

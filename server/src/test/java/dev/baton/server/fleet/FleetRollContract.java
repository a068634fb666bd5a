package dev.baton.server.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.AuditFilter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41's fleet upgrade through a real server, its API and the real runner channel, once per
 * dialect: a roll over five runners drains and updates them one at a time, waits for each to
 * rejoin at the new version and resumes it; the third never comes back, so when its timeout
 * passes on the server's clock the roll stops, failed, naming it, and the last two are never
 * touched. The roll's state is in the store, audited at its start and its end.
 */
abstract class FleetRollContract {
    private static final String CHECKSUM = "c".repeat(64);
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @TempDir
    Path dataDir;

    final HttpClient http = HttpClient.newHttpClient();
    final MutableClock clock = MutableClock.startingNow();
    final List<TestRunner> connections = new ArrayList<>();
    BatonServer server;
    String admin;

    abstract String databaseUrl();

    @BeforeEach
    void start() throws Exception {
        ServerConfig config = ServerConfig.defaults(dataDir).withListen("127.0.0.1", 0).toBuilder()
                .databaseUrl(databaseUrl())
                .build();
        server = ServerAssembly.builder(config, clock).start();
        admin = Files.readString(dataDir.resolve("admin-token")).strip();
    }

    @AfterEach
    void stop() {
        connections.forEach(TestRunner::crash);
        http.shutdownNow();
        server.close();
    }

    HttpResponse<String> call(String method, String path, Object body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                        .header("Authorization", "Bearer " + admin)
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    JsonNode json(HttpResponse<String> r, int status) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return Wire.mapper().readTree(r.body());
    }

    private TestRunner connect(String slug, String key, String version, long pid) {
        TestRunner r = TestRunner.connect(
                URI.create(server.publicUrl().replace("http://", "ws://") + "/v0/runners/" + slug + "/channel"), key);
        connections.add(r);
        r.send(new RunnerMessage.Ready(
                600,
                "linux",
                "x86_64",
                version,
                1,
                null,
                null,
                null,
                null,
                null,
                slug + ".example",
                pid,
                Instant.parse("2026-11-29T06:00:00Z").plusSeconds(pid)));
        return r;
    }

    private JsonNode runner(String slug) throws Exception {
        return json(call("GET", "/v0/runners/" + slug, null), 200);
    }

    @Test
    void aRollOverFiveRunnersStopsAtTheOneThatNeverRejoinsNamingIt() throws Exception {
        json(
                call(
                        "POST",
                        "/v0/specs",
                        Map.of(
                                "name",
                                "bench box",
                                "architecture",
                                "x86_64",
                                "cpu",
                                2,
                                "memory",
                                1L << 30,
                                "disk",
                                10L << 30,
                                "network",
                                false)),
                201);
        List<String> slugs = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        List<TestRunner> channels = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            JsonNode created = json(call("POST", "/v0/runners", Map.of("name", "bench " + i)), 201);
            String slug = created.at("/runner/slug").asText();
            json(call("POST", "/v0/runners/" + slug + "/specs", Map.of("spec", "bench-box")), 201);
            slugs.add(slug);
            keys.add(created.get("key").asText());
            channels.add(connect(slug, created.get("key").asText(), "1.0.0", 100 + i));
        }
        for (String slug : slugs)
            await().until(() -> "1.0.0".equals(runner(slug).path("version").asText(null)));
        JsonNode before = runner(slugs.get(0));
        assertThat(before.get("behind").asBoolean())
                .as("1.0.0 is not the shipped version")
                .isTrue();
        assertThat(before.at("/machine/host").asText()).isEqualTo(slugs.get(0) + ".example");
        assertThat(before.at("/machine/pid").asLong()).isEqualTo(101);
        assertThat(before.at("/machine/address").asText()).isEqualTo("127.0.0.1");

        JsonNode roll = json(
                call(
                        "POST",
                        "/v0/rolls",
                        Map.of(
                                "all",
                                true,
                                "version",
                                "2.0.0",
                                "url",
                                "https://downloads.example/baton.jar",
                                "checksum",
                                CHECKSUM,
                                "rejoin_timeout_seconds",
                                TIMEOUT.toSeconds())),
                201);
        String id = roll.get("uuid").asText();
        assertThat(roll.get("state").asText()).isEqualTo("running");
        assertThat(roll.get("runners")).hasSize(5);
        // One roll at a time, whatever node is asked.
        assertThat(json(
                                call(
                                        "POST",
                                        "/v0/rolls",
                                        Map.of(
                                                "runner",
                                                slugs.get(4),
                                                "url",
                                                "https://downloads.example/baton.jar",
                                                "checksum",
                                                CHECKSUM)),
                                409)
                        .get("code")
                        .asText())
                .isEqualTo("roll_in_progress");

        for (int i = 0; i < 2; i++) {
            TestRunner r = channels.get(i);
            assertThat(r.expect(ServerMessage.Drain.class).state()).isEqualTo(DrainState.QUIET);
            assertThat(r.expect(ServerMessage.Update.class).version()).isEqualTo("2.0.0");
            // Its agent installs the update and starts again: a new process on a new connection, at the new version.
            r.crash();
            TestRunner again = connect(slugs.get(i), keys.get(i), "2.0.0", 200 + i);
            assertThat(again.expect(ServerMessage.Drain.class).state())
                    .as("resumed once back")
                    .isEqualTo(DrainState.RUNNING);
        }
        // The third is told to update and never comes back.
        TestRunner third = channels.get(2);
        assertThat(third.expect(ServerMessage.Drain.class).state()).isEqualTo(DrainState.QUIET);
        third.expect(ServerMessage.Update.class);
        await().until(() -> "updating"
                .equals(json(call("GET", "/v0/rolls/" + id, null), 200)
                        .at("/runners/2/state")
                        .asText()));
        third.crash();
        clock.advance(TIMEOUT.minusSeconds(1));
        assertThat(json(call("GET", "/v0/rolls/" + id, null), 200).get("state").asText())
                .isEqualTo("running");
        clock.advance(Duration.ofSeconds(1));
        await().until(() -> "failed"
                .equals(json(call("GET", "/v0/rolls/" + id, null), 200)
                        .get("state")
                        .asText()));

        JsonNode failed = json(call("GET", "/v0/rolls/" + id, null), 200);
        assertThat(failed.get("reason").asText())
                .contains("runner " + slugs.get(2))
                .contains("did not rejoin at version 2.0.0");
        assertThat(failed.at("/runners/0/state").asText()).isEqualTo("done");
        assertThat(failed.at("/runners/0/from_version").asText()).isEqualTo("1.0.0");
        assertThat(failed.at("/runners/1/state").asText()).isEqualTo("done");
        assertThat(failed.at("/runners/2/state").asText()).isEqualTo("failed");
        assertThat(failed.at("/runners/3/state").asText()).isEqualTo("pending");
        assertThat(failed.at("/runners/4/state").asText()).isEqualTo("pending");
        // The last two were never told anything.
        channels.get(3).expectSilence(Duration.ofMillis(200));
        channels.get(4).expectSilence(Duration.ofMillis(200));
        assertThat(runner(slugs.get(0)).get("version").asText()).isEqualTo("2.0.0");
        assertThat(runner(slugs.get(0)).at("/machine/pid").asLong()).isEqualTo(200);
        assertThat(runner(slugs.get(3)).get("version").asText()).isEqualTo("1.0.0");

        var actions = server.store().access().audit(new AuditFilter(null, null, null, null, null, 50)).stream()
                .map(e -> e.action())
                .toList();
        assertThat(actions).contains("runner_roll.started", "runner_roll.failed");
        // A failed roll does not block the next one.
        json(
                call(
                        "POST",
                        "/v0/rolls",
                        Map.of(
                                "runner",
                                slugs.get(4),
                                "version",
                                "2.0.0",
                                "url",
                                "https://downloads.example/baton.jar",
                                "checksum",
                                CHECKSUM)),
                201);
    }

    @Test
    void aRollIsRefusedWithoutATargetOrAChecksumAndChangesNothing() throws Exception {
        assertThat(json(call("POST", "/v0/rolls", Map.of("url", "https://x.example/b.jar", "checksum", CHECKSUM)), 400)
                        .get("code")
                        .asText())
                .isEqualTo("invalid_target");
        assertThat(json(
                                call(
                                        "POST",
                                        "/v0/rolls",
                                        Map.of("all", true, "url", "https://x.example/b.jar", "checksum", "nope")),
                                400)
                        .get("field")
                        .asText())
                .isEqualTo("checksum");
        assertThat(json(
                                call(
                                        "POST",
                                        "/v0/rolls",
                                        Map.of("all", true, "url", "https://x.example/b.jar", "checksum", CHECKSUM)),
                                400)
                        .get("code")
                        .asText())
                .isEqualTo("no_runners");
        assertThat(json(call("GET", "/v0/rolls", null), 200)).isEmpty();
        assertThat(json(call("GET", "/v0/rolls/" + UUID.randomUUID(), null), 404)
                        .get("code")
                        .asText())
                .isEqualTo("roll_not_found");
    }
}

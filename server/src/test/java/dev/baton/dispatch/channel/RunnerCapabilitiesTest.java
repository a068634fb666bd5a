package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.RunnerCapabilities;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.TestRunner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a runner reports with {@code ready} (executor, hypervisor, accelerator, baseline image) is readable by the admin while it is connected. */
class RunnerCapabilitiesTest {
    /** Generous: a ready is one WebSocket message, but CI runs the whole suite on two busy cores. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dataDir;

    final HttpClient http = HttpClient.newHttpClient();
    BatonServer server;
    String admin;

    @BeforeEach
    void start() throws Exception {
        server = ServerAssembly.builder(
                        ServerConfig.defaults(dataDir).withListen("127.0.0.1", 0), MutableClock.startingNow())
                .start();
        admin = Files.readString(dataDir.resolve("admin-token")).strip();
    }

    @AfterEach
    void stop() {
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

    @Test
    void theCapabilitiesOfTheLastReadyAreShownWhileConnectedAndTheApiSaysWhenItCannotKnow() throws Exception {
        JsonNode created = json(call("POST", "/v0/runners", Map.of("name", "vm box")), 201);
        String key = created.get("key").asText();
        URI channel = URI.create(server.publicUrl().replace("http://", "ws://") + "/v0/runners/vm-box/channel");
        assertThat(json(call("GET", "/v0/runners/vm-box/capabilities", null), 409)
                        .get("code")
                        .asText())
                .isEqualTo("runner_not_connected");
        assertThat(json(call("GET", "/v0/runners/nobody/capabilities", null), 404)
                        .get("code")
                        .asText())
                .isEqualTo("runner_not_found");

        TestRunner runner = TestRunner.connect(channel, key);
        // An older runner's ready says nothing about its executor.
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "old", 1));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);
        JsonNode none = json(call("GET", "/v0/runners/vm-box/capabilities", null), 200);
        assertThat(none.get("runner").asText())
                .isEqualTo(created.at("/runner/uuid").asText());
        assertThat(none.path("capabilities").isMissingNode()
                        || none.get("capabilities").isNull())
                .isTrue();
        assertThat(none.path("images").isMissingNode() || none.get("images").isNull())
                .as("no images reported")
                .isTrue();
        // Image affinity: the images a heartbeat reports are shown, most recent first.
        var a = dev.baton.protocol.value.ImageDigest.of("sha256:" + "a".repeat(64));
        var b = dev.baton.protocol.value.ImageDigest.of("sha256:" + "b".repeat(64));
        runner.send(new RunnerMessage.Heartbeat(null, null, java.util.List.of(b, a)));
        runner.expect(ServerMessage.Ack.class);
        JsonNode images =
                json(call("GET", "/v0/runners/vm-box/capabilities", null), 200).get("images");
        assertThat(images.get(0).asText()).isEqualTo(b.value());
        assertThat(images.get(1).asText()).isEqualTo(a.value());
        runner.crash();

        TestRunner again = TestRunner.connect(channel, key);
        again.send(new RunnerMessage.Ready(
                30, "linux", "x86_64", "new", 1, new RunnerCapabilities("microvm", "qemu-microvm", "tcg")));
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode c = json(call("GET", "/v0/runners/vm-box/capabilities", null), 200)
                    .get("capabilities");
            assertThat(c.get("executor").asText()).isEqualTo("microvm");
            assertThat(c.get("hypervisor").asText()).isEqualTo("qemu-microvm");
            assertThat(c.get("accelerator").asText()).isEqualTo("tcg");
            assertThat(c.has("baseline_image"))
                    .as("a runner that does not say whether it runs a baseline image")
                    .isFalse();
        });
        // Issue 45: whether the executor runs a paired run's baseline in an image of its own, kept and shown as sent.
        again.send(new RunnerMessage.Ready(
                30,
                "linux",
                "x86_64",
                "new",
                1,
                RunnerCapabilities.executor("runc").withBaselineImage(true)));
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode c = json(call("GET", "/v0/runners/vm-box/capabilities", null), 200)
                    .get("capabilities");
            assertThat(c.get("executor").asText()).isEqualTo("runc");
            assertThat(c.get("baseline_image").isBoolean()).isTrue();
            assertThat(c.get("baseline_image").asBoolean()).isTrue();
        });
        again.send(new RunnerMessage.Ready(
                30,
                "linux",
                "x86_64",
                "new",
                1,
                new RunnerCapabilities("microvm", "qemu-microvm", "tcg").withBaselineImage(false)));
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(json(call("GET", "/v0/runners/vm-box/capabilities", null), 200)
                                .at("/capabilities/baseline_image")
                                .asText())
                        .isEqualTo("false"));
        // Only shown, never trusted for size: a long value is cut.
        again.send(new RunnerMessage.Ready(
                30, "linux", "x86_64", "new", 1, RunnerCapabilities.executor("x".repeat(5000))));
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(json(call("GET", "/v0/runners/vm-box/capabilities", null), 200)
                                .at("/capabilities/executor")
                                .asText())
                        .hasSize(RunnerCapabilities.MAX_LENGTH));
        again.crash();
    }
}

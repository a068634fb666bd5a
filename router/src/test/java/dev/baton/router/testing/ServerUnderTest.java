package dev.baton.router.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.Wire;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * The real, assembled Baton server on 127.0.0.1 with a SQLite file and an admin client. Its
 * heartbeat timeout is short so that a killed router is noticed in seconds; {@link #restart()}
 * stops it and starts it again on the same port and data.
 */
public final class ServerUnderTest implements AutoCloseable {
    private final HttpClient http = HttpClient.newHttpClient();
    private ServerConfig config;
    private BatonServer server;
    public final String adminToken;

    public ServerUnderTest(Path dataDir, Duration heartbeatTimeout) {
        this.config = ServerConfig.builder(dataDir)
                .host("127.0.0.1")
                .port(0)
                .heartbeatTimeout(heartbeatTimeout)
                .build();
        this.server = ServerAssembly.builder(config, Clock.systemUTC()).start();
        this.config = config.withListen("127.0.0.1", server.port());
        try {
            this.adminToken = Files.readString(dataDir.resolve("admin-token")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + config.port());
    }

    public void stop() {
        server.close();
    }

    public void start() {
        server = ServerAssembly.builder(config, Clock.systemUTC()).start();
    }

    public JsonNode post(String path, Object body) {
        return send(HttpRequest.newBuilder(url().resolve(path))
                .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body))));
    }

    public JsonNode get(String path) {
        return send(HttpRequest.newBuilder(url().resolve(path)).GET());
    }

    private JsonNode send(HttpRequest.Builder request) {
        try {
            var response = http.send(
                    request.header("Authorization", "Bearer " + adminToken)
                            .header("Content-Type", "application/json")
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode() / 100).as(response.body()).isEqualTo(2);
            return Wire.mapper().readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        http.shutdownNow();
        server.close();
    }
}

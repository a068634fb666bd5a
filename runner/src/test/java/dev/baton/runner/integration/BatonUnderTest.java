package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Base64;
import java.util.Map;

/**
 * The real, assembled Baton server (API, runner channel, registry) on 127.0.0.1 with a SQLite
 * file, plus an admin HTTP client. {@link #restart()} stops it gracefully and starts it again on
 * the same port and data, as an operator restarting the service would.
 */
final class BatonUnderTest implements AutoCloseable {
    private final Path dataDir;
    private final HttpClient http = HttpClient.newHttpClient();
    private ServerConfig config;
    private BatonServer server;
    private final Clock clock;
    final String adminToken;

    BatonUnderTest(Path dataDir) {
        this(dataDir, null);
    }

    /** @param databaseUrl null for the SQLite file in {@code dataDir}, or a PostgreSQL URL ({@link PostgresSchemas#fresh()}) */
    BatonUnderTest(Path dataDir, String databaseUrl) {
        this(dataDir, databaseUrl, b -> b, Clock.systemUTC());
    }

    /** With settings of its own ({@code settings} adds to the builder: a broker, say) and the server's clock. */
    BatonUnderTest(
            Path dataDir,
            String databaseUrl,
            java.util.function.UnaryOperator<ServerConfig.Builder> settings,
            Clock clock) {
        this.dataDir = dataDir;
        this.clock = clock;
        this.config = settings.apply(
                        ServerConfig.builder(dataDir).host("127.0.0.1").port(0).databaseUrl(databaseUrl))
                .build();
        this.server = ServerAssembly.builder(config, clock).start();
        this.config = config.withListen("127.0.0.1", server.port());
        try {
            this.adminToken = Files.readString(dataDir.resolve("admin-token")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    URI url() {
        return URI.create(server.publicUrl());
    }

    int port() {
        return server.port();
    }

    void restart() {
        server.close();
        server = ServerAssembly.builder(config, clock).start();
    }

    /** Stops the server; {@link #startWith} starts it again on the same port and data. */
    void stop() {
        server.close();
    }

    /** Starts the stopped server again with changed settings (an operator editing its configuration). */
    void startWith(java.util.function.UnaryOperator<ServerConfig.Builder> settings) {
        config = settings.apply(config.toBuilder()).build();
        server = ServerAssembly.builder(config, clock).start();
    }

    /** A runner the admin registered: its slug and its key. */
    record Registered(String slug, RunnerKey key) {}

    /** The organization {@code acme} (plan team) and its project {@code bench}, which most tests submit to. */
    void benchProject() {
        post("/v0/organizations", Map.of("name", "Acme", "slug", "acme", "plan", "team"));
        post("/v0/projects", Map.of("name", "Bench", "slug", "bench", "organization", "acme"));
    }

    /** A spec named and slugged {@code slug} for {@code architecture}: one CPU, 256 MiB, 1 GiB of disk. */
    JsonNode spec(String slug, String architecture) {
        return post(
                "/v0/specs",
                Map.of(
                        "name",
                        slug,
                        "slug",
                        slug,
                        "architecture",
                        architecture,
                        "cpu",
                        1,
                        "memory",
                        256 << 20,
                        "disk",
                        1L << 30));
    }

    /** Registers runner {@code name} and assigns it {@code specs}. */
    Registered runner(String name, String... specs) {
        JsonNode created = post("/v0/runners", Map.of("name", name));
        String slug = created.at("/runner/slug").asText();
        for (String spec : specs) post("/v0/runners/" + slug + "/specs", Map.of("spec", spec));
        return new Registered(slug, RunnerKey.parse(created.get("key").asText()));
    }

    JsonNode post(String path, Object body) {
        return send(
                HttpRequest.newBuilder(url().resolve(path))
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body))),
                2);
    }

    /** A POST answered with a status of {@code expectedClass} (4: a client error); its JSON body. */
    JsonNode post(String path, Object body, int expectedClass) {
        return send(
                HttpRequest.newBuilder(url().resolve(path))
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body))),
                expectedClass);
    }

    JsonNode patch(String path, Object body) {
        return send(
                HttpRequest.newBuilder(url().resolve(path))
                        .method("PATCH", HttpRequest.BodyPublishers.ofString(Wire.encode(body))),
                2);
    }

    JsonNode get(String path) {
        return send(HttpRequest.newBuilder(url().resolve(path)).GET(), 2);
    }

    /** A sample of {@code /metrics} (Prometheus text) by its name and labels, e.g. {@code x_total{event="a"}}; 0 when absent. */
    double metric(String sample) {
        var request = HttpRequest.newBuilder(url().resolve("/metrics"))
                .header("Authorization", "Bearer " + adminToken)
                .GET()
                .build();
        try {
            String text =
                    http.send(request, HttpResponse.BodyHandlers.ofString()).body();
            return text.lines()
                    .filter(l -> l.startsWith(sample + " "))
                    .mapToDouble(l ->
                            Double.parseDouble(l.substring(sample.length() + 1).strip()))
                    .findFirst()
                    .orElse(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** An OCI registry request with the admin token as basic-auth password; returns the status. */
    int registry(String method, String path, String contentType, byte[] body) {
        String basic = Base64.getEncoder().encodeToString(("admin:" + adminToken).getBytes(StandardCharsets.UTF_8));
        var request = HttpRequest.newBuilder(url().resolve(path))
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", contentType)
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Pushes a test image into Baton's registry: monolithic blob uploads and a manifest PUT, as any OCI client does. */
    void pushImage(dev.baton.runner.testing.TestImages.Image image, String repository, String tag) throws IOException {
        Path blobs = image.layout().resolve("blobs/sha256");
        try (var files = Files.list(blobs)) {
            for (Path blob : files.toList()) {
                int status = registry(
                        "POST",
                        "/v2/" + repository + "/blobs/uploads/?digest=sha256:" + blob.getFileName(),
                        "application/octet-stream",
                        Files.readAllBytes(blob));
                assertThat(status).as("upload of " + blob.getFileName()).isEqualTo(201);
            }
        }
        byte[] manifest = Files.readAllBytes(blobs.resolve(image.digest().hex()));
        assertThat(registry(
                        "PUT",
                        "/v2/" + repository + "/manifests/" + tag,
                        "application/vnd.oci.image.manifest.v1+json",
                        manifest))
                .isEqualTo(201);
    }

    private JsonNode send(HttpRequest.Builder request, int expectedClass) {
        try {
            var response = http.send(
                    request.header("Authorization", "Bearer " + adminToken)
                            .header("Content-Type", "application/json")
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode() / 100).as(response.body()).isEqualTo(expectedClass);
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

package dev.baton.registry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.BlobSettings;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.Wire;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.store.blob.BlobStorage;
import dev.baton.store.blob.S3Bucket;
import dev.baton.store.blob.S3Location;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An S3 bucket that cannot be reached (a closed port on 127.0.0.1) is an outage, answered 503
 * with a stable code, never taken for a missing blob or image.
 */
class BlobStorageOutageTest {
    @TempDir
    Path tmp;

    static URI nowhere() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
    }

    @Test
    void theRegistryAnswersUnavailable() throws Exception {
        S3Location location = new S3Location(nowhere(), "us-east-1", "baton", "", "k", "s", true);
        try (RegistryFixture registry =
                new RegistryFixture(tmp, 1 << 20, BlobStorage.s3(S3Bucket.connect(location, S3Bucket.MIN_PART_SIZE)))) {
            HttpResponse<byte[]> manifest = registry.admin("GET", "/v2/alpha/img/manifests/v1", null);
            assertThat(manifest.statusCode()).isEqualTo(503);
            JsonNode error = Wire.mapper().readTree(manifest.body()).at("/errors/0");
            assertThat(error.path("code").asText()).isEqualTo("UNAVAILABLE");
            assertThat(error.path("message").asText()).doesNotContain("127.0.0.1");
        }
    }

    @Test
    void theApiAnswersBlobStorageUnavailable() throws Exception {
        URI endpoint = nowhere();
        String admin = "baton_admin_outage_test_token";
        ServerConfig config = ServerConfig.builder(tmp)
                .host("127.0.0.1")
                .port(0)
                .requestBodyMaxBytes(1 << 20)
                .adminToken(admin)
                .blobs(new BlobSettings(
                        BlobSettings.Kind.S3,
                        null,
                        endpoint.toString(),
                        "us-east-1",
                        "baton",
                        "",
                        "k",
                        "s",
                        true,
                        BlobSettings.DEFAULT_PART_SIZE))
                .build();
        HttpClient http = HttpClient.newHttpClient();
        try (BatonServer server =
                ServerAssembly.builder(config, Clock.systemUTC()).start()) {
            record Call(String path, Object body) {}
            for (Call call : List.of(
                    new Call("/v0/organizations", Map.of("name", "Acme", "slug", "acme", "plan", "team")),
                    new Call("/v0/projects", Map.of("name", "Bench", "slug", "bench", "organization", "acme")),
                    new Call(
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
                                    1L << 33)))) {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(server.publicUrl() + call.path()))
                                .header("Authorization", "Bearer " + admin)
                                .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(call.body())))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            }
            // Submitting looks the image up in the registry's storage, which is down.
            HttpResponse<String> run = http.send(
                    HttpRequest.newBuilder(URI.create(server.publicUrl() + "/v0/run"))
                            .header("Authorization", "Bearer " + admin)
                            .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(Map.of(
                                    "project",
                                    "bench",
                                    "image",
                                    "img:v1",
                                    "spec",
                                    "small",
                                    "adapter",
                                    "json",
                                    "cmd",
                                    List.of("bench"),
                                    "timeout",
                                    60))))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(run.statusCode()).as(run.body()).isEqualTo(503);
            assertThat(Wire.mapper().readTree(run.body()).path("code").asText()).isEqualTo("blob_storage_unavailable");
            HttpResponse<String> jobs = http.send(
                    HttpRequest.newBuilder(URI.create(server.publicUrl() + "/v0/projects/bench/jobs"))
                            .header("Authorization", "Bearer " + admin)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(jobs.statusCode()).isEqualTo(200);
            assertThat(Wire.mapper().readTree(jobs.body()).path("jobs").isArray())
                    .isTrue();
            assertThat(Wire.mapper().readTree(jobs.body()).path("jobs").size())
                    .as("nothing was stored")
                    .isZero();
        } finally {
            http.shutdownNow();
        }
    }
}

package dev.baton.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.BlobSettings;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.S3rver;
import dev.baton.server.testing.TestDatabases;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.blob.BlobStorage;
import dev.baton.store.blob.Digest;
import dev.baton.store.blob.S3Location;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two complete Baton servers (nodes A and B) on one PostgreSQL database and one blob store, a
 * shared directory or an S3-compatible bucket (s3rver standing in for S3 or MinIO): an OCI upload
 * started on A is continued and finished on B, survives a restart of A, and what one node stores
 * (images, job output) the other serves.
 */
@Tag("postgres")
@Tag("s3")
class RegistryAcrossNodesTest {
    static final String ADMIN = "baton_admin_cluster_test_token";

    /** One s3rver for the class; each test has its own key prefix in its bucket. */
    static S3rver s3;

    @TempDir
    Path tmp;

    @AfterAll
    static void stopS3() throws Exception {
        if (s3 != null) s3.close();
        s3 = null;
    }

    final HttpClient http = HttpClient.newHttpClient();
    final List<AutoCloseable> closeLater = new ArrayList<>();
    String databaseUrl;
    ServerConfig configA;
    ServerConfig configB;

    @AfterEach
    void stop() throws Exception {
        http.shutdownNow();
        for (AutoCloseable c : closeLater.reversed()) c.close();
        if (databaseUrl != null) {
            String schema = databaseUrl.substring(databaseUrl.indexOf("currentSchema=") + "currentSchema=".length());
            try (Connection c = DriverManager.getConnection("jdbc:" + TestDatabases.PG_HOST_URL, "postgres", "")) {
                c.createStatement().execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    /** Nodes A and B on a fresh PostgreSQL schema and the blob store named by {@code kind}. */
    void cluster(String kind) throws Exception {
        boolean pg = TestDatabases.postgresReachable();
        if (!pg && "true".equals(System.getenv("CI")))
            throw new IllegalStateException("PostgreSQL not reachable although CI=true");
        assumeTrue(pg, "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ", skipping the two-node test");
        BlobSettings blobs;
        if (kind.equals("s3")) {
            if (s3 == null) s3 = S3rver.start();
            S3Location location = s3.freshLocation();
            blobs = S3rver.settings(location);
        } else {
            BlobSettings d = BlobSettings.directoryDefault();
            blobs = new BlobSettings(
                    BlobSettings.Kind.DIRECTORY,
                    tmp.resolve("shared-mount"),
                    null,
                    d.s3Region(),
                    null,
                    "",
                    null,
                    null,
                    true,
                    d.s3PartSize());
        }
        databaseUrl = TestDatabases.freshPostgresSchema();
        configA = config(tmp.resolve("a"), blobs);
        configB = config(tmp.resolve("b"), blobs);
    }

    ServerConfig config(Path dataDir, BlobSettings blobs) {
        return ServerConfig.builder(dataDir)
                .host("127.0.0.1")
                .port(0)
                .databaseUrl(databaseUrl)
                .requestBodyMaxBytes(1 << 20)
                .adminToken(ADMIN)
                .maxRequeues(3)
                .blobs(blobs)
                .build();
    }

    BatonServer start(ServerConfig config) {
        BatonServer server = ServerAssembly.builder(config, Clock.systemUTC()).start();
        closeLater.add(server);
        return server;
    }

    /** Nodes A and B started, with an organization and the project {@code slug} made through A. */
    BatonServer[] twoNodesWithProject(String kind, String slug) throws Exception {
        cluster(kind);
        BatonServer a = start(configA);
        BatonServer b = start(configB);
        api(a, "POST", "/v0/organizations", Map.of("name", "Acme", "slug", "acme", "plan", "team"), 201);
        api(a, "POST", "/v0/projects", Map.of("name", slug, "slug", slug, "organization", "acme"), 201);
        return new BatonServer[] {a, b};
    }

    @ParameterizedTest(name = "blob store: {0}")
    @ValueSource(strings = {"directory", "s3"})
    void anUploadStartedOnOneNodeIsFinishedOnTheOtherAndSurvivesARestart(String kind) throws Exception {
        BatonServer[] nodes = twoNodesWithProject(kind, "alpha");
        BatonServer a = nodes[0];
        BatonServer b = nodes[1];

        byte[] first = "the first chunk, sent to node A; ".getBytes(StandardCharsets.UTF_8);
        byte[] second = "the second, to node B; ".getBytes(StandardCharsets.UTF_8);
        byte[] last = "and the last with the PUT, on B too".getBytes(StandardCharsets.UTF_8);
        byte[] whole = concat(first, second, last);
        Digest digest = Digest.sha256(whole);

        String location = registry(a, "POST", "/v2/alpha/img/blobs/uploads/", null)
                .headers()
                .firstValue("Location")
                .orElseThrow();
        assertThat(registry(a, "PATCH", location, first, "Content-Range", "0-" + (first.length - 1))
                        .statusCode())
                .isEqualTo(202);
        HttpResponse<byte[]> onB = registry(
                b, "PATCH", location, second, "Content-Range", first.length + "-" + (first.length + second.length - 1));
        assertThat(onB.statusCode()).as(new String(onB.body())).isEqualTo(202);
        int received = first.length + second.length;
        assertThat(onB.headers().firstValue("Range")).hasValue("0-" + (received - 1));

        // Node A did not see B's chunk, yet knows where the upload stands: a stale range is refused there.
        HttpResponse<byte[]> stale = registry(
                a, "PATCH", location, second, "Content-Range", first.length + "-" + (first.length + second.length - 1));
        assertThat(stale.statusCode()).isEqualTo(416);
        assertThat(registry(a, "GET", location, null).headers().firstValue("Range"))
                .hasValue("0-" + (received - 1));

        HttpResponse<byte[]> put = registry(b, "PUT", location + "?digest=" + digest, last);
        assertThat(put.statusCode()).as(new String(put.body())).isEqualTo(201);
        assertThat(registry(a, "GET", "/v2/alpha/img/blobs/" + digest, null).body())
                .isEqualTo(whole);
        assertThat(registry(a, "GET", location, null).statusCode())
                .as("the session is over on every node")
                .isEqualTo(404);
        assertThat(a.store().uploads().countRegistryUploads()).isZero();

        // A session outlives the node that started it.
        String second2 = registry(a, "POST", "/v2/alpha/img/blobs/uploads/", null)
                .headers()
                .firstValue("Location")
                .orElseThrow();
        assertThat(registry(a, "PATCH", second2, first).statusCode()).isEqualTo(202);
        a.close();
        BatonServer a2 = start(configA);
        assertThat(registry(a2, "PATCH", second2, second).statusCode()).isEqualTo(202);
        Digest wrong = Digest.sha256("not this".getBytes(StandardCharsets.UTF_8));
        HttpResponse<byte[]> mismatch = registry(b, "PUT", second2 + "?digest=" + wrong, null);
        assertThat(mismatch.statusCode()).isEqualTo(400);
        assertThat(Wire.mapper().readTree(mismatch.body()).at("/errors/0/code").asText())
                .isEqualTo("DIGEST_INVALID");
        try (BlobStorage shared = BlobStorage.open(configA.blobs(), configA.dataDir())) {
            assertThat(shared.blobs().stagedUploads())
                    .as("nothing staged is left behind")
                    .isEmpty();
            assertThat(shared.blobs().size(wrong)).isEmpty();
        }
        assertThat(b.store().uploads().countRegistryUploads()).isZero();
    }

    @ParameterizedTest(name = "blob store: {0}")
    @ValueSource(strings = {"directory", "s3"})
    void anImagePushedToOneNodeRunsAndItsOutputIsServedByTheOther(String kind) throws Exception {
        BatonServer[] nodes = twoNodesWithProject(kind, "bench");
        BatonServer a = nodes[0];
        BatonServer b = nodes[1];
        api(
                a,
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

        // Pushed through node B (whole blobs, then the manifest), submitted on node A.
        TestImage image = new TestImage("across");
        for (byte[] blob : image.blobs()) {
            assertThat(registry(b, "POST", "/v2/bench/img/blobs/uploads/?digest=" + Digest.sha256(blob), blob)
                            .statusCode())
                    .isEqualTo(201);
        }
        assertThat(registry(
                                b,
                                "PUT",
                                "/v2/bench/img/manifests/v1",
                                image.manifest,
                                "Content-Type",
                                "application/vnd.oci.image.manifest.v1+json")
                        .statusCode())
                .isEqualTo(201);

        JsonNode runner = api(a, "POST", "/v0/runners", Map.of("name", "box"), 201);
        String slug = runner.at("/runner/slug").asText();
        api(a, "POST", "/v0/runners/" + slug + "/specs", Map.of("spec", "small"), 201);
        try (TestRunner box = TestRunner.connect(
                URI.create(a.publicUrl().replace("http://", "ws://") + "/v0/runners/" + slug + "/channel"),
                runner.get("key").asText())) {
            box.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
            JsonNode run = api(
                    a,
                    "POST",
                    "/v0/run",
                    Map.of(
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
                            120),
                    201);
            String job = run.at("/job/uuid").asText();
            ClaimedJob claimed = box.expect(ServerMessage.Job.class).job();
            assertThat(claimed.config().digest().toString())
                    .isEqualTo(image.digest().toString());
            box.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
            box.expect(ServerMessage.Ack.class);
            box.send(new RunnerMessage.Completed(
                    claimed.uuid(),
                    claimed.lease(),
                    List.of(new IterationResult(0, "{\"sort\":{\"latency\":{\"value\":4.2}}}", "", Map.of()))));
            box.expect(ServerMessage.Ack.class);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> api(b, "GET", "/v0/projects/bench/jobs/" + job, null, 200)
                            .get("status")
                            .asText()
                            .equals("processed"));
            JsonNode onB = api(b, "GET", "/v0/projects/bench/jobs/" + job, null, 200);
            assertThat(onB.at("/output/results/0/stdout").asText())
                    .as("output stored by A, read by B")
                    .contains("latency");
        }
    }

    JsonNode api(BatonServer server, String method, String path, Object body, int expected) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                .header("Authorization", "Bearer " + ADMIN)
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(Wire.encode(body)));
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode())
                .as(method + " " + path + ": " + response.body())
                .isEqualTo(expected);
        return response.body().isEmpty() ? null : Wire.mapper().readTree(response.body());
    }

    HttpResponse<byte[]> registry(BatonServer server, String method, String path, byte[] body, String... headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                .header(
                        "Authorization",
                        "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(("baton:" + ADMIN).getBytes(StandardCharsets.UTF_8)))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        for (int i = 0; i < headers.length; i += 2) request.header(headers[i], headers[i + 1]);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] p : parts) length += p.length;
        byte[] all = new byte[length];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }
}

package dev.baton.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.Wire;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.store.StoreFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The full Baton server (ServerAssembly: API, runner channel, registry, metrics) on 127.0.0.1 and
 * an ephemeral port, with its store wrapped in a {@link CountingStore}, plus the REST calls the
 * benchmarks make as a user would (admin token, JSON over HTTP/1.1).
 */
final class BenchServer implements LifecycleThroughput.Target, AutoCloseable {
    static final String ORGANIZATION = "bench";
    static final String PROJECT = "bench";
    /** request_body_max_bytes of the benchmarked server (and of the transport floor's). */
    static final int REQUEST_BODY_MAX_BYTES = 1 << 20;

    /** A runner created over the API: its slug and its key (shown once). */
    record Credentials(String slug, String key) {}

    private final BatonServer server;
    private final CountingStore store;
    private final HttpClient http;
    private final String admin;
    private final AtomicLong processed = new AtomicLong();
    private volatile long lastProcessedNanos;

    private BenchServer(Path dataDir, String databaseUrl, String nodeId) throws IOException {
        this(dataDir, databaseUrl, nodeId, ServerConfig.DEFAULT_IMAGE_AFFINITY);
    }

    private BenchServer(Path dataDir, String databaseUrl, String nodeId, boolean imageAffinity) throws IOException {
        this(dataDir, databaseUrl, nodeId, imageAffinity, null);
    }

    private BenchServer(
            Path dataDir,
            String databaseUrl,
            String nodeId,
            boolean imageAffinity,
            dev.baton.core.config.BrokerSettings broker)
            throws IOException {
        ServerConfig d = ServerConfig.defaults(dataDir);
        ServerConfig.Builder builder = ServerConfig.builder(dataDir)
                .host("127.0.0.1")
                .port(0)
                .databaseUrl(databaseUrl)
                .requestBodyMaxBytes(REQUEST_BODY_MAX_BYTES);
        if (broker != null) builder.broker(broker);
        ServerConfig config = builder.build();
        if (nodeId != null) config = config.withNode(nodeId, d.nodeTimeout());
        config = config.withImageAffinity(imageAffinity);
        this.store = new CountingStore(StoreFactory.open(databaseUrl, dataDir), () -> {
            lastProcessedNanos = System.nanoTime();
            processed.incrementAndGet();
        });
        this.server = ServerAssembly.builder(config, Clock.systemUTC())
                .store(store.store())
                .start();
        this.admin = Files.readString(dataDir.resolve("admin-token")).strip();
        this.http = newHttpClient();
    }

    static BenchServer start(Path dataDir, String databaseUrl) throws IOException {
        return start(dataDir, databaseUrl, ServerConfig.DEFAULT_IMAGE_AFFINITY);
    }

    /** A server with image affinity on or off (docs/scheduling.md; the affinity benchmark compares both). */
    static BenchServer start(Path dataDir, String databaseUrl, boolean imageAffinity) throws IOException {
        BenchServer s = new BenchServer(dataDir, databaseUrl, null, imageAffinity);
        s.post("/v0/organizations", Map.of("name", "Bench", "slug", ORGANIZATION, "plan", "team"));
        s.post("/v0/projects", Map.of("name", "Bench", "slug", PROJECT, "organization", ORGANIZATION));
        return s;
    }

    /** A server that also offers the jobs of {@code brokerSpecs} on the NATS broker at {@code natsUrl} (transport A, {@link LeaseBench}). */
    static BenchServer startWithBroker(
            Path dataDir, String databaseUrl, String natsUrl, java.util.Set<String> brokerSpecs) throws IOException {
        BenchServer s = new BenchServer(
                dataDir,
                databaseUrl,
                null,
                ServerConfig.DEFAULT_IMAGE_AFFINITY,
                new dev.baton.core.config.BrokerSettings(
                        natsUrl, "websocket", brokerSpecs, dev.baton.core.config.BrokerSettings.DEFAULT_LEASE_TTL));
        s.post("/v0/organizations", Map.of("name", "Bench", "slug", ORGANIZATION, "plan", "team"));
        s.post("/v0/projects", Map.of("name", "Bench", "slug", PROJECT, "organization", ORGANIZATION));
        return s;
    }

    /**
     * {@code count} nodes of one cluster in this process: one database, one data directory (so one
     * admin token, registry key and blob directory, as docs/operations.md asks), ids node-1….
     */
    static List<BenchServer> startCluster(Path dataDir, String databaseUrl, int count) throws IOException {
        List<BenchServer> nodes = new java.util.ArrayList<>();
        for (int i = 1; i <= count; i++) nodes.add(new BenchServer(dataDir, databaseUrl, "node-" + i));
        nodes.getFirst().post("/v0/organizations", Map.of("name", "Bench", "slug", ORGANIZATION, "plan", "team"));
        nodes.getFirst().post("/v0/projects", Map.of("name", "Bench", "slug", PROJECT, "organization", ORGANIZATION));
        return nodes;
    }

    /** The admin token (the affinity benchmark pushes its images with it). */
    String adminToken() {
        return admin;
    }

    CountingStore store() {
        return store;
    }

    @Override
    public long storeWrites() {
        return store.writes();
    }

    @Override
    public long storeReads() {
        return store.reads();
    }

    @Override
    public Map<String, Long> storeReadsByMethod() {
        return store.readsByMethod();
    }

    @Override
    public long processed() {
        return processed.get();
    }

    @Override
    public long lastProcessedNanos() {
        return lastProcessedNanos;
    }

    @Override
    public void createSpec(String slug) {
        post(
                "/v0/specs",
                Map.of(
                        "name",
                        slug,
                        "slug",
                        slug,
                        "architecture",
                        "x86_64",
                        "cpu",
                        1,
                        "memory",
                        1 << 30,
                        "disk",
                        1L << 33));
    }

    /** Creates a runner and, when {@code spec} is not null, assigns it that spec. */
    @Override
    public Credentials createRunner(String name, String spec) {
        JsonNode created = post("/v0/runners", Map.of("name", name));
        String slug = created.get("runner").get("slug").asText();
        if (spec != null) post("/v0/runners/" + slug + "/specs", Map.of("spec", spec));
        return new Credentials(slug, created.get("key").asText());
    }

    /** The server's base URL (http). */
    URI url() {
        return URI.create(server.publicUrl());
    }

    @Override
    public URI channel(String slug) {
        return URI.create(server.publicUrl().replace("http://", "ws://") + "/v0/runners/" + slug + "/channel");
    }

    /**
     * POST /v0/run: a no-op job for {@code spec}; returns the job's uuid. Command-only (no image):
     * the simulated runners pull nothing, and the server refuses an image its registry lacks. Its
     * output is no benchmark data, so the {@code raw} adapter: with the default {@code json} the job
     * would stay completed with an adapter error and never reach processed, the end of the
     * lifecycle measured.
     */
    @Override
    public String submit(String spec) {
        return post("/v0/run", runBody(spec)).at("/job/uuid").asText();
    }

    /** The body of every submission the benchmarks make (the transport floor sends the same). */
    static Map<String, Object> runBody(String spec) {
        return Map.of("project", PROJECT, "spec", spec, "cmd", List.of("true"), "timeout", 3600, "adapter", "raw");
    }

    JsonNode get(String path) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                            .header("Authorization", "Bearer " + admin)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200)
                throw new IllegalStateException("GET " + path + " → " + response.statusCode() + ": " + response.body());
            return Wire.mapper().readTree(response.body());
        } catch (IOException e) {
            throw new IllegalStateException("GET " + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** A GET answered as a stream (Server-Sent Events), with the admin token. */
    HttpResponse<java.io.InputStream> stream(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(server.publicUrl() + path))
                        .header("Authorization", "Bearer " + admin)
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    }

    JsonNode post(String path, Object body) {
        return post(http, server.publicUrl(), admin, path, body);
    }

    /** An HTTP client as the benchmarks use it (HTTP/1.1, the transport floor's too). */
    static HttpClient newHttpClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    /** A JSON POST with a bearer token, as a user would send it; shared with the transport floor so both are driven alike. */
    static JsonNode post(HttpClient http, String baseUrl, String token, String path, Object body) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(baseUrl + path))
                            .header("Authorization", "Bearer " + token)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2)
                throw new IllegalStateException(
                        "POST " + path + " → " + response.statusCode() + ": " + response.body());
            return response.body().isEmpty() ? null : Wire.mapper().readTree(response.body());
        } catch (IOException e) {
            throw new IllegalStateException("POST " + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The server's base URL as a string (transport A's runner messages are posted to it). */
    String baseUrl() {
        return server.publicUrl();
    }

    @Override
    public void close() {
        http.shutdownNow();
        server.close();
    }
}

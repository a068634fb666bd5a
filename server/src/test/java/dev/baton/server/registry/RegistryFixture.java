package dev.baton.server.registry;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.RunnerUuid;
import dev.baton.server.config.ServerConfig;
import dev.baton.server.token.RegistryTokens;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A real registry on 127.0.0.1 and an ephemeral port: its own Javalin with only the registry
 * module, storage in a temporary data directory, a test clock, and projects {@code alpha} and
 * {@code beta}.
 */
final class RegistryFixture implements AutoCloseable {
    static final String ADMIN = "baton_admin_test_token";

    final Path dataDir;
    final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    final Map<String, ProjectUuid> projects = new ConcurrentHashMap<>();
    final RegistryTokens tokens;
    final RegistryModule module;
    final Javalin app;
    final HttpClient http = HttpClient.newHttpClient();
    final ProjectUuid alpha = ProjectUuid.random();
    final ProjectUuid beta = ProjectUuid.random();

    RegistryFixture(Path dataDir, long maxBodyBytes) throws Exception {
        this.dataDir = dataDir;
        projects.put("alpha", alpha);
        projects.put("beta", beta);
        ServerConfig defaults = ServerConfig.defaults(dataDir);
        ServerConfig config = new ServerConfig(defaults.host(), 0, dataDir, null, null, defaults.requestBodyMaxBytes(),
                maxBodyBytes, ADMIN, defaults.heartbeatTimeout(), defaults.acceptanceTimeout(), defaults.jobTimeoutGrace(),
                defaults.cancelDeadline(), defaults.defaultPollTimeout(), Duration.ofMinutes(10), defaults.maxRequeues(),
                defaults.heartbeatFlushInterval());
        tokens = RegistryTokens.open(dataDir, config.pullTokenTtl());
        ProjectLookup lookup = id -> id.uuid().map(u -> Optional.of(new ProjectUuid(u)).filter(projects::containsValue))
                .orElseGet(() -> Optional.ofNullable(projects.get(id.text())));
        module = RegistryModule.open(config, ADMIN, lookup, tokens, clock);
        app = Javalin.create(module::addRoutes).start("127.0.0.1", 0);
    }

    static RegistryFixture start(Path dataDir) throws Exception {
        return new RegistryFixture(dataDir, 1024L * 1024 * 1024);
    }

    String base() {
        return "http://127.0.0.1:" + app.port();
    }

    String hostPort() {
        return "127.0.0.1:" + app.port();
    }

    static String basic(String password) {
        return "Basic " + Base64.getEncoder().encodeToString(("baton:" + password).getBytes(StandardCharsets.UTF_8));
    }

    String pullToken(ProjectUuid project) {
        return tokens.issue(RunnerUuid.random(), project, clock.instant());
    }

    HttpResponse<byte[]> send(String method, String path, String authorization, byte[] body, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(path.startsWith("http") ? path : base() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (authorization != null) request.header("Authorization", authorization);
        for (int i = 0; i < headers.length; i += 2) request.header(headers[i], headers[i + 1]);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> admin(String method, String path, byte[] body, String... headers) throws Exception {
        return send(method, path, basic(ADMIN), body, headers);
    }

    @Override
    public void close() {
        app.stop();
    }
}

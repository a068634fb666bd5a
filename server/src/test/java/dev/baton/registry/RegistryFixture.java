package dev.baton.registry;

import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.MutableClock;
import dev.baton.store.Project;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.blob.BlobStorage;
import dev.baton.store.token.Access;
import dev.baton.store.token.RegistryTokens;
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
import java.util.List;
import java.util.Set;

/**
 * A real registry on 127.0.0.1 and an ephemeral port: its own Javalin with only the registry
 * module, storage and a real SQLite store in a temporary data directory, a test clock, and
 * projects {@code alpha} and {@code beta} (resolved through the store, by slug or UUID).
 */
final class RegistryFixture implements AutoCloseable {
    static final String ADMIN = "baton_admin_test_token";

    final Path dataDir;
    final BlobStorage storage;
    final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    final Store store;
    final RegistryTokens tokens;
    final RegistryModule module;
    final Javalin app;
    final HttpClient http = HttpClient.newHttpClient();
    final ProjectUuid alpha;
    final ProjectUuid beta;

    RegistryFixture(Path dataDir, long maxBodyBytes) throws Exception {
        this(dataDir, maxBodyBytes, BlobStorage.directory(dataDir.resolve("storage")));
    }

    /** The registry on the given blob storage (a bucket, for the S3 runs of the same tests). */
    RegistryFixture(Path dataDir, long maxBodyBytes, BlobStorage storage) throws Exception {
        this.dataDir = dataDir;
        this.storage = storage;
        store = StoreFactory.open(null, dataDir);
        Instant now = clock.instant();
        long org = store.organizations()
                .createOrganization("Org", Slug.of("org"), PlanTier.FREE, now)
                .id();
        alpha = store.organizations()
                .createProject(org, "Alpha", Slug.of("alpha"), now)
                .uuid();
        beta = store.organizations()
                .createProject(org, "Beta", Slug.of("beta"), now)
                .uuid();
        ServerConfig config = ServerConfig.builder(dataDir)
                .port(0)
                .registryMaxBodyBytes(maxBodyBytes)
                .adminToken(ADMIN)
                .pullTokenTtl(Duration.ofMinutes(10))
                .build();
        tokens = RegistryTokens.open(dataDir, config.pullTokenTtl());
        ProjectLookup lookup = id -> store.organizations().findProject(id).map(Project::uuid);
        // The server passes its Authenticator (PrincipalGrants); here only the admin token, compared in constant time.
        module = RegistryModule.open(
                config,
                storage,
                store,
                Credentials.adminOnly(candidate -> java.security.MessageDigest.isEqual(
                        ADMIN.getBytes(StandardCharsets.UTF_8), candidate.getBytes(StandardCharsets.UTF_8))),
                lookup,
                tokens,
                clock);
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

    /** A pull-only token for every repository of {@code project}, as /v2/token gives one (not a job's). */
    String pullToken(ProjectUuid project) {
        List<Access> pull = List.of(new Access(Access.PROJECT, project.toString(), Set.of("pull")));
        return tokens.issueUserToken("runner", pull, clock.instant()).token();
    }

    HttpResponse<byte[]> send(String method, String path, String authorization, byte[] body, String... headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(path.startsWith("http") ? path : base() + path))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
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
        store.close();
        try {
            storage.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

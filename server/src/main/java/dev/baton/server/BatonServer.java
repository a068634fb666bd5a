package dev.baton.server;

import dev.baton.api.ApiContext;
import dev.baton.api.ManagementApi;
import dev.baton.core.config.PrivateFiles;
import dev.baton.core.config.ServerConfig;
import dev.baton.dispatch.JobEvents;
import dev.baton.dispatch.output.AttemptOutputs;
import dev.baton.dispatch.output.ObjectOutputStore;
import dev.baton.dispatch.output.OutputStore;
import dev.baton.registry.Images;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.blob.BlobStorage;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.AdminAuth;
import dev.baton.web.auth.AdminToken;
import dev.baton.web.auth.AuditLog;
import dev.baton.web.auth.Authenticator;
import dev.baton.web.auth.SubmissionLimiter;
import dev.baton.web.http.BeforeHttpStop;
import dev.baton.web.http.BodyLimit;
import dev.baton.web.http.ClientAddress;
import dev.baton.web.http.ErrorHandling;
import dev.baton.web.http.HealthRoutes;
import dev.baton.web.http.JsonErrorHandler;
import dev.baton.web.http.RouteModule;
import io.javalin.Javalin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Baton server, wired by hand in one place: opens the store, resolves the admin token, builds
 * Javalin (virtual threads) with every {@link RouteModule} (error mapping, health, the management
 * API, then whatever the builder adds: runner channel, registry, metrics), and binds. Closing it
 * first lets {@link BeforeHttpStop} parts act (runner channels are closed with 4003), then
 * stops accepting requests, lets running ones finish, then closes modules and the store.
 */
public final class BatonServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BatonServer.class);

    /** What modules are built from. {@code publicUrl} is known once the port is bound. */
    public record Wiring(
            ServerConfig config,
            Store store,
            Clock clock,
            OutputStore outputs,
            AdminAuth admin,
            Supplier<String> publicUrl,
            AccessControl access,
            BlobStorage storage) {}

    /** One registered HTTP route, as Javalin holds it (path with {params}). */
    public record Route(String method, String path) {}

    private final ServerConfig config;
    private final Store store;
    private final AdminToken adminToken;
    private final Javalin app;
    private final List<AutoCloseable> closeables;
    private final List<BeforeHttpStop> beforeStop;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile String publicUrl;
    private final ManagementApi management;

    private BatonServer(Builder b) {
        this.config = b.config;
        Path dataDir = config.dataDir().toAbsolutePath();
        try {
            PrivateFiles.prepareDataDirectory(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create data directory " + dataDir, e);
        }
        this.adminToken = AdminToken.resolve(config.adminToken(), dataDir);
        this.store = b.store != null ? b.store : StoreFactory.open(config.databaseUrl(), dataDir);
        List<AutoCloseable> toClose = new ArrayList<>();
        try {
            // Blobs, registry metadata and job output: a directory or an S3-compatible bucket.
            BlobStorage storage = BlobStorage.open(config.blobs(), dataDir);
            toClose.add(storage);
            // Small output on its attempt's row, the rest in the blob storage (decision 0034).
            OutputStore outputs = new AttemptOutputs(store, new ObjectOutputStore(storage.objects()));
            AdminAuth admin = new AdminAuth(adminToken);
            // Who may call what, for the API, the registry, the OJS binding and the console (docs/api.md, "Access").
            AccessControl access = new AccessControl(
                    new Authenticator(adminToken, store.access(), b.clock),
                    store,
                    new AuditLog(store.access(), b.clock, config.auditRetention()));
            Wiring wiring = new Wiring(config, store, b.clock, outputs, admin, this::publicUrl, access, storage);
            ServerParts parts = new ServerParts();
            for (Assembly assembly : b.assemblies) assembly.assemble(wiring, parts);
            toClose.addAll(parts.closeables());
            ApiContext api = new ApiContext(
                    store,
                    b.clock,
                    access,
                    new SubmissionLimiter(config.tokenSubmissionsPerMinute(), b.clock),
                    config.requestBodyMaxBytes(),
                    parts.events(),
                    outputs,
                    this::publicUrl,
                    parts.queue(),
                    Images.in(storage));

            ManagementApi management = new ManagementApi(api);
            this.management = management;
            // Closed first (closing runs in reverse): no schedule fires into parts already closed.
            toClose.add(management);
            HealthRoutes health = new HealthRoutes(store);
            parts.readiness().forEach(health::report);
            List<RouteModule> modules = new ArrayList<>(List.of(
                    new ErrorHandling(), new BodyLimit(config.requestBodyMaxBytes()), health, access, management));
            modules.addAll(parts.routes());
            this.beforeStop = List.copyOf(parts.beforeStop());
            this.app = Javalin.create(cfg -> {
                cfg.concurrency.useVirtualThreads = true;
                cfg.startup.showJavalinBanner = false;
                cfg.jetty.host = config.host();
                cfg.jetty.port = config.port();
                cfg.http.maxRequestSize = config.requestBodyMaxBytes();
                // ctx.ip() is the client behind trusted_proxies, for every module alike (issue 41).
                ClientAddress clients = new ClientAddress(config.edge().trustedProxies());
                cfg.contextResolver.ip = ctx -> clients.of(
                        ctx.req().getRemoteAddr(), Collections.list(ctx.req().getHeaders(ClientAddress.FORWARDED_FOR)));
                // Graceful stop: requests in progress get this long to finish.
                cfg.jetty.modifyServer(server -> {
                    server.setStopTimeout(10_000);
                    // Errors Jetty answers itself (414, 431, …) in the JSON error shape too.
                    server.setErrorHandler(new JsonErrorHandler());
                });
                modules.forEach(m -> m.addRoutes(cfg));
            });
            app.start();
            Supplier<String> advertised = memoized(this::advertiseUrl);
            parts.afterStart().forEach(a -> a.afterHttpStart(advertised));
        } catch (RuntimeException e) {
            closeQuietly(toClose);
            store.close();
            throw e;
        }
        Collections.reverse(toClose);
        this.closeables = List.copyOf(toClose);
        this.publicUrl =
                config.publicUrl() != null ? config.publicUrl() : "http://" + urlHost(config.host()) + ":" + app.port();
        LOG.info("Baton server listening on {}:{} (public URL {})", config.host(), app.port(), publicUrl);
    }

    public static Builder builder(ServerConfig config) {
        return new Builder(config);
    }

    /** Submits the runs of due schedules now, as every node's once-a-second sweep does; how many this node submitted. */
    public int fireDueSchedules() {
        return management.fireDueSchedules();
    }

    /** The bound port (the real one when the config asked for port 0). */
    public int port() {
        return app.port();
    }

    /** How runners and clients reach this server: public_url, or derived from host and port. */
    public String publicUrl() {
        String url = publicUrl;
        return url != null ? url : "http://" + urlHost(config.host()) + ":" + config.port();
    }

    public ServerConfig config() {
        return config;
    }

    public Store store() {
        return store;
    }

    /** Where the generated admin token is, or null when it was configured. */
    public Path adminTokenFile() {
        return adminToken.file();
    }

    /** Every HTTP route registered with Javalin, for the OpenAPI check and for diagnostics. */
    public List<Route> routes() {
        return app.unsafe.internalRouter.allHttpHandlers().stream()
                .map(p -> new Route(p.endpoint.method.name(), p.endpoint.path))
                .toList();
    }

    /** What a person starting the server needs to know: where it is and how to authenticate. */
    public String banner() {
        String url = publicUrl();
        String token = adminToken.file() != null ? "$(cat " + adminToken.file() + ")" : "$BATON_ADMIN_TOKEN";
        String database = config.databaseUrl() == null
                ? "SQLite in " + config.dataDir().toAbsolutePath()
                : redact(config.databaseUrl());
        return String.join(
                System.lineSeparator(),
                "Baton server listening on " + url,
                "  database:    " + database,
                "  admin token: "
                        + (adminToken.file() != null
                                ? adminToken.file() + " (generated on first start, mode 0600)"
                                : "configured (admin_token)"),
                "  try:         curl -H \"Authorization: Bearer " + token + "\" " + url + "/v0/runners",
                "  API docs:    " + url + "/v0/openapi.json",
                "  console:     " + url + "/ (sign in with the admin token)",
                "Stop with Ctrl-C.");
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        LOG.info("Baton server stopping");
        for (BeforeHttpStop first : beforeStop) {
            try {
                first.beforeHttpStop();
            } catch (RuntimeException e) {
                LOG.warn("stopping {} failed", first.getClass().getSimpleName(), e);
            }
        }
        try {
            app.stop();
        } finally {
            closeQuietly(closeables);
            store.close();
        }
    }

    private static void closeQuietly(List<AutoCloseable> closeables) {
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed", c.getClass().getSimpleName(), e);
            }
        }
    }

    /** How the other nodes reach this one: advertise_url, or this process's host and bound port (a wildcard host: the machine's name). */
    private String advertiseUrl() {
        if (config.advertiseUrl() != null) return config.advertiseUrl();
        String host = config.host();
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.net.UnknownHostException e) {
                host = "127.0.0.1";
            }
        }
        return "http://" + urlHost(host) + ":" + app.port();
    }

    /** {@code value}, worked out on the first call only. */
    private static Supplier<String> memoized(Supplier<String> value) {
        return new Supplier<>() {
            private String known;

            @Override
            public synchronized String get() {
                if (known == null) known = value.get();
                return known;
            }
        };
    }

    private static String urlHost(String host) {
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) return "127.0.0.1";
        if (host.contains(":") && !host.startsWith("[")) return "[" + host + "]";
        return host;
    }

    /** A database URL without its password, for printing. */
    static String redact(String url) {
        return url.replaceAll("//[^@/]*@", "//***@").replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    /** Adds parts to a server being built: the one place that wires them (see {@link ServerAssembly}). */
    @FunctionalInterface
    public interface Assembly {
        void assemble(Wiring wiring, ServerParts parts);
    }

    /** Optional parts; everything else comes from the config. */
    public static final class Builder {
        private final ServerConfig config;
        private Clock clock = Clock.systemUTC();
        private Store store;
        private final List<Assembly> assemblies = new ArrayList<>();

        private Builder(ServerConfig config) {
            this.config = Objects.requireNonNull(config);
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /** Use this store instead of opening one from database_url; the server closes it. */
        public Builder store(Store store) {
            this.store = store;
            return this;
        }

        /** Adds parts, built in order on the server's wiring (several assemblies run in the order given). */
        public Builder assembly(Assembly assembly) {
            assemblies.add(Objects.requireNonNull(assembly));
            return this;
        }

        /** Who hears about submitted and canceled jobs (a test's recorder); default nobody. */
        public Builder jobEvents(Function<Wiring, JobEvents> factory) {
            Objects.requireNonNull(factory);
            return assembly((w, parts) -> parts.jobEvents(factory.apply(w)));
        }

        /** Who hears about submitted and canceled jobs; default {@link JobEvents#NONE}. */
        public Builder jobEvents(JobEvents events) {
            Objects.requireNonNull(events);
            return jobEvents(w -> events);
        }

        /** Adds a route module that needs no closing (a test's extra route, say). */
        public Builder module(Function<Wiring, RouteModule> factory) {
            Objects.requireNonNull(factory);
            return assembly((w, parts) -> parts.routes(factory.apply(w)));
        }

        public BatonServer start() {
            return new BatonServer(this);
        }
    }
}

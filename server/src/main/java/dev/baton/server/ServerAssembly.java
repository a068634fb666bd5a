package dev.baton.server;

import dev.baton.server.alerts.Judge;
import dev.baton.server.alerts.Judging;
import dev.baton.server.alerts.WebhookSender;
import dev.baton.server.broker.NatsLeaseTransport;
import dev.baton.server.channel.RunnerChannel;
import dev.baton.server.config.ServerConfig;
import dev.baton.server.console.ConsoleEvents;
import dev.baton.server.console.ConsoleModule;
import dev.baton.server.console.ConsolePages;
import dev.baton.server.console.ConsoleSignIn;
import dev.baton.server.http.MetricsRoutes;
import dev.baton.server.logs.LogRoutes;
import dev.baton.server.metrics.BatonMetrics;
import dev.baton.server.ojs.OjsRoutes;
import dev.baton.server.registry.Images;
import dev.baton.server.registry.PrincipalGrants;
import dev.baton.server.registry.RegistryModule;
import dev.baton.server.store.Project;
import dev.baton.server.token.RegistryTokens;
import java.time.Clock;

/**
 * The whole Baton server as `baton server` runs it: the management API (BatonServer's own
 * modules) plus the runner channel and dispatch, the OCI registry, and Prometheus metrics, all on
 * one store and one clock. Tests use the same assembly with a test clock.
 */
public final class ServerAssembly {
    private ServerAssembly() {}

    public static BatonServer start(ServerConfig config) {
        return builder(config, Clock.systemUTC()).start();
    }

    /** A builder with every part of the server added; callers may still set a store. */
    public static BatonServer.Builder builder(ServerConfig config, Clock clock) {
        BatonMetrics metrics = new BatonMetrics();
        Parts parts = new Parts();
        return BatonServer.builder(config)
                .clock(clock)
                .jobEvents(w -> {
                    parts.tokens =
                            RegistryTokens.open(w.config().dataDir(), w.config().pullTokenTtl());
                    parts.channel =
                            new RunnerChannel(w.store(), w.config(), w.clock(), parts.tokens, w.outputs(), metrics);
                    // Alerts (docs/alerts.md): every processed report is judged against its thresholds.
                    parts.judging = new Judging(
                            new Judge(w.store().alerts(), w.clock()),
                            w.store().alerts(),
                            w.clock(),
                            java.time.Duration.ofMinutes(1),
                            metrics);
                    parts.channel.onReportProcessed(parts.judging::judgeSoon);
                    parts.webhooks = new WebhookSender(w.store(), w.clock(), java.time.Duration.ofSeconds(1));
                    parts.channel.start();
                    return parts.channel;
                })
                .module(w -> parts.channel.routes())
                .module(w -> new ClosingModule(parts.judging))
                .module(w -> new ClosingModule(parts.webhooks))
                .module(w -> parts.channel.controlRoutes())
                .module(w -> parts.channel.rollRoutes())
                .module(w -> {
                    // Live logs from this node's tails or from the node holding the runner's channel
                    // (asked with node tokens when nodes share a bus), whole logs from stored output.
                    parts.logs = new LogRoutes(
                            w.store(),
                            w.outputs(),
                            parts.channel.liveLogs(),
                            parts.channel.clustered() ? parts.tokens : null,
                            w.config().nodeId(),
                            w.config().nodeTimeout(),
                            w.clock());
                    return parts.logs;
                })
                .module(w -> RegistryModule.open(
                        w.config(),
                        w.storage(),
                        w.store(),
                        new PrincipalGrants(w.access().authenticator(), w.store()),
                        id -> w.store().organizations().findProject(id).map(Project::uuid),
                        parts.tokens,
                        w.clock()))
                .module(w -> new MetricsRoutes(metrics))
                // Transport A (docs/protocol.md): leases offered on NATS, only when nats_url is set.
                .module(w -> w.config().broker().enabled()
                        ? new NatsLeaseTransport(w.config(), w.store(), w.clock(), parts.channel, parts.tokens, metrics)
                        : cfg -> {})
                // The Open Job Spec door to the same store (docs/ojs.md).
                .module(w -> new OjsRoutes(
                        w.store(),
                        w.clock(),
                        w.config().databaseUrl() == null ? "sqlite" : "postgresql",
                        java.time.Duration.ofSeconds(1),
                        w.access().authenticator(),
                        w.access().audit(),
                        metrics))
                // The web console (docs/console.md) at /, reading the same store and dispatch.
                .module(w -> new ConsoleModule(
                        w.store(),
                        new ConsoleSignIn(w.access().authenticator()),
                        new ConsolePages(
                                w.store(), parts.channel, parts.channel::activity, w.outputs(), Images.in(w.storage())),
                        new ConsoleEvents(parts.channel.changes(), w.store()),
                        parts.logs.unguarded(),
                        w.publicUrl(),
                        w.clock()));
    }

    /** Objects made by one factory and used by the next, while BatonServer builds itself. */
    private static final class Parts {
        RegistryTokens tokens;
        RunnerChannel channel;
        LogRoutes logs;
        Judging judging;
        WebhookSender webhooks;
    }

    /** Closes a part that serves no routes with the server. */
    private record ClosingModule(AutoCloseable part) implements dev.baton.server.http.RouteModule, AutoCloseable {
        @Override
        public void addRoutes(io.javalin.config.JavalinConfig config) {}

        @Override
        public void close() throws Exception {
            part.close();
        }
    }
}

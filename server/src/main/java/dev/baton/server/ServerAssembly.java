package dev.baton.server;

import dev.baton.alerts.Judge;
import dev.baton.alerts.Judging;
import dev.baton.alerts.WebhookSender;
import dev.baton.broker.NatsLeaseTransport;
import dev.baton.console.ConsoleEvents;
import dev.baton.console.ConsoleModule;
import dev.baton.console.ConsolePages;
import dev.baton.console.ConsoleSignIn;
import dev.baton.core.config.ServerConfig;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.dispatch.channel.RunnerChannel;
import dev.baton.dispatch.logs.LogRoutes;
import dev.baton.ojs.OjsRoutes;
import dev.baton.registry.Images;
import dev.baton.registry.PrincipalGrants;
import dev.baton.registry.RegistryModule;
import dev.baton.store.Project;
import dev.baton.store.token.RegistryTokens;
import dev.baton.web.http.MetricsRoutes;
import java.time.Clock;
import java.time.Duration;

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
        return BatonServer.builder(config).clock(clock).assembly((w, parts) -> assemble(w, parts, metrics));
    }

    /** Every part, built in the order each needs the last, and what each is to the server. */
    private static void assemble(BatonServer.Wiring w, ServerParts parts, BatonMetrics metrics) {
        RegistryTokens tokens =
                RegistryTokens.open(w.config().dataDir(), w.config().pullTokenTtl());
        RunnerChannel channel = new RunnerChannel(w.store(), w.config(), w.clock(), tokens, w.outputs(), metrics);
        parts.jobEvents(channel).queue(channel).beforeHttpStop(channel).closeWithServer(channel);
        // Alerts (docs/alerts.md): every processed report is judged against its thresholds.
        Judging judging = new Judging(
                new Judge(w.store().alerts(), w.clock()),
                w.store().alerts(),
                w.clock(),
                Duration.ofMinutes(1),
                metrics);
        channel.onReportProcessed(judging::judgeSoon);
        WebhookSender webhooks = new WebhookSender(w.store(), w.clock(), Duration.ofSeconds(1));
        channel.start();
        parts.routes(channel.routes()).closeWithServer(judging).closeWithServer(webhooks);
        parts.routes(channel.controlRoutes()).routes(channel.rollRoutes());
        // Live logs from this node's tails or from the node holding the runner's channel (asked
        // with node tokens when nodes share a bus), whole logs from stored output.
        LogRoutes logs = new LogRoutes(
                w.store(),
                w.outputs(),
                channel.liveLogs(),
                channel.clustered() ? tokens : null,
                w.config().nodeId(),
                w.config().nodeTimeout(),
                w.clock());
        parts.routes(logs).afterHttpStart(logs).closeWithServer(logs);
        parts.routes(RegistryModule.open(
                w.config(),
                w.storage(),
                w.store(),
                new PrincipalGrants(w.access().authenticator(), w.store()),
                id -> w.store().organizations().findProject(id).map(Project::uuid),
                tokens,
                w.clock()));
        parts.routes(new MetricsRoutes(metrics));
        // Transport A (docs/protocol.md): leases offered on NATS, only when nats_url is set.
        if (w.config().broker().enabled()) {
            NatsLeaseTransport nats =
                    new NatsLeaseTransport(w.config(), w.store(), w.clock(), channel, tokens, metrics);
            parts.routes(nats).readiness(nats).closeWithServer(nats);
        }
        // The Open Job Spec door to the same store (docs/ojs.md).
        OjsRoutes ojs = new OjsRoutes(
                w.store(),
                w.clock(),
                w.config().databaseUrl() == null ? "sqlite" : "postgresql",
                Duration.ofSeconds(1),
                w.access().authenticator(),
                w.access().audit(),
                metrics);
        parts.routes(ojs).closeWithServer(ojs);
        // The web console (docs/console.md) at /, reading the same store and dispatch.
        ConsoleModule console = new ConsoleModule(
                w.store(),
                new ConsoleSignIn(w.access().authenticator()),
                new ConsolePages(w.store(), channel, channel::activity, w.outputs(), Images.in(w.storage())),
                new ConsoleEvents(channel.changes(), w.store()),
                logs.unguarded(),
                w.publicUrl(),
                w.clock());
        parts.routes(console).closeWithServer(console);
    }
}

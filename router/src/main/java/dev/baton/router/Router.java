package dev.baton.router;

import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.net.DownstreamServer;
import dev.baton.router.net.UpstreamConnection;
import dev.baton.router.policy.SchedulingPolicy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code baton router}, assembled: the upstream connection (the router as one runner of the
 * server), the downstream server its runners connect to, the outbox, and the event loop that
 * alone enters {@link RouterCore}. Everything is wired here and nowhere else.
 */
public final class Router implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Router.class);

    /**
     * @param server    the Baton server's URL
     * @param runner    the router's runner (UUID or slug) on the server
     * @param key       the router's own runner key on the server; never given to its runners
     * @param host      where runners connect (127.0.0.1 unless the fleet is elsewhere)
     * @param port      0 for any free port
     * @param keysFile  the runners' hashed keys ({@link RouterKeys})
     * @param stateDir  the outbox of results owed upstream lives here
     */
    public record Options(
            URI server,
            String runner,
            RunnerKey key,
            String host,
            int port,
            Path keysFile,
            Path stateDir,
            SchedulingPolicy policy,
            RouterSettings settings) {
        @Override
        public String toString() {
            return "Options[" + server + ", " + runner + ", " + host + ":" + port + "]"; // never the key
        }
    }

    private final EventLoop loop = new EventLoop();
    private final RouterCore core;
    private final UpstreamConnection upstream;
    private final DownstreamServer downstream;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("baton-router-tick").unstarted(r));

    private Router(Options o, Clock clock, Duration tick) {
        RouterMetrics metrics = new RouterMetrics();
        Outbox outbox = new Outbox(o.stateDir().resolve("outbox"));
        this.upstream = new UpstreamConnection(
                o.server(), o.runner(), o.key(), o.settings().maxMessageBytes(), this::upstreamEvent, clock);
        this.core = new RouterCore(o.settings(), o.policy(), outbox, metrics, clock, upstream);
        metrics.gauges(
                () -> loop.call(core::connectedRunners),
                () -> loop.call(core::heldJobs),
                () -> loop.call(() -> core.upstreamConnected() ? 1 : 0));
        RouterKeys keys = new RouterKeys(o.keysFile());
        this.downstream = new DownstreamServer(
                o.host(),
                o.port(),
                o.settings().maxMessageBytes(),
                keys,
                new DownstreamServer.Events() {
                    @Override
                    public void connected(RunnerEntry entry, Link link) {
                        loop.post(() -> core.runnerConnected(entry, link));
                    }

                    @Override
                    public void received(String runner, Link link, dev.baton.protocol.message.RunnerMessage message) {
                        loop.post(() -> core.runnerReceived(runner, link, message));
                    }

                    @Override
                    public void invalid(String runner, Link link, String reason) {
                        loop.post(() -> core.runnerInvalid(runner, link, reason));
                    }

                    @Override
                    public void closed(String runner, Link link) {
                        loop.post(() -> core.runnerClosed(runner, link));
                    }
                },
                () -> loop.call(core::status),
                metrics::scrape);
        ticker.scheduleAtFixedRate(
                () -> loop.post(core::tick), tick.toMillis(), tick.toMillis(), TimeUnit.MILLISECONDS);
        ticker.scheduleAtFixedRate(() -> loop.post(core::heartbeat), 1, 1, TimeUnit.SECONDS);
        upstream.start();
        log.info(
                "Baton router {} listening on {}:{} for runners; upstream {} as runner {}; policy {}",
                o.settings().name(),
                o.host(),
                downstream.port(),
                o.server(),
                o.runner(),
                o.policy().describe());
    }

    public static Router start(Options options, Clock clock) {
        return new Router(options, clock, Duration.ofMillis(200));
    }

    private void upstreamEvent(Input input) {
        switch (input) {
            case Input.ConnectionOpened o -> loop.post(core::upstreamOpened);
            case Input.ConnectionClosed c -> loop.post(() -> core.upstreamClosed(c.reason()));
            case Input.Received r -> loop.post(() -> core.upstreamReceived(r.message()));
            case Input.Malformed m -> log.warn("malformed message from the server: {}", m.reason());
            default -> {}
        }
    }

    public int port() {
        return downstream.port();
    }

    public RouterStatus status() {
        return loop.call(core::status);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        downstream.close();
        upstream.close();
        loop.close();
    }
}

package dev.baton.router.net;

import dev.baton.protocol.message.InvalidMessageException;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.router.Link;
import dev.baton.router.RouterKeys;
import dev.baton.router.RouterStatus;
import dev.baton.router.RunnerEntry;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's side facing its runners: the runner channel at the path the server uses
 * ({@code /v0/runners/{runner}/channel}), so an unmodified {@code baton runner up --server
 * <router>} connects to it, authenticated against {@link RouterKeys} before the upgrade; plus
 * {@code GET /metrics}, {@code GET /status} (JSON) and {@code GET /} (the same as a page).
 */
public final class DownstreamServer implements AutoCloseable {
    public static final String CHANNEL = "/v0/runners/{runner}/channel";
    private static final Logger log = LoggerFactory.getLogger(DownstreamServer.class);
    private static final String ENTRY = "baton.router.entry";
    private static final String LINK = "baton.router.link";

    /** What the server does with channel events: the router's event loop behind it. */
    public interface Events {
        void connected(RunnerEntry entry, Link link);

        void received(String runner, Link link, RunnerMessage message);

        void invalid(String runner, Link link, String reason);

        void closed(String runner, Link link);
    }

    private final Javalin app;

    public DownstreamServer(
            String host,
            int port,
            int maxMessageBytes,
            RouterKeys keys,
            Events events,
            Supplier<RouterStatus> status,
            Supplier<String> metrics) {
        this.app = Javalin.create(cfg -> {
            cfg.concurrency.useVirtualThreads = true;
            cfg.startup.showJavalinBanner = false;
            cfg.jetty.host = host;
            cfg.jetty.port = port;
            cfg.jetty.modifyWebSocketServletFactory(factory -> {
                factory.setMaxTextMessageSize(maxMessageBytes);
                factory.setMaxBinaryMessageSize(maxMessageBytes);
                factory.setMaxFrameSize(maxMessageBytes);
                // a backstop for dead TCP connections; the protocol's read timer is the router's
                factory.setIdleTimeout(Duration.ofMinutes(5));
            });
            cfg.routes.wsBeforeUpgrade(CHANNEL, ctx -> authenticate(ctx, keys));
            cfg.routes.ws(CHANNEL, ws -> {
                ws.onConnect(ctx -> {
                    RunnerEntry entry = ctx.attribute(ENTRY);
                    if (entry == null) {
                        ctx.closeSession(1008, "unauthenticated");
                        return;
                    }
                    SessionLink link = new SessionLink(ctx);
                    ctx.attribute(LINK, link);
                    events.connected(entry, link);
                });
                ws.onMessage(ctx -> {
                    SessionLink link = ctx.attribute(LINK);
                    RunnerEntry entry = ctx.attribute(ENTRY);
                    if (link == null) return;
                    try {
                        events.received(entry.name(), link, Wire.decodeRunnerMessage(ctx.message()));
                    } catch (InvalidMessageException e) {
                        events.invalid(entry.name(), link, e.getMessage());
                    }
                });
                ws.onBinaryMessage(ctx -> {
                    SessionLink link = ctx.attribute(LINK);
                    if (link != null)
                        link.send(new ServerMessage.Error(
                                "binary_not_supported", "the channel carries JSON text messages only"));
                });
                ws.onClose(ctx -> {
                    SessionLink link = ctx.attribute(LINK);
                    RunnerEntry entry = ctx.attribute(ENTRY);
                    if (link != null) events.closed(entry.name(), link);
                });
                ws.onError(ctx -> log.debug("runner channel error: {}", String.valueOf(ctx.error())));
            });
            cfg.routes.get(
                    "/metrics",
                    ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                            .result(metrics.get()));
            cfg.routes.get("/status", ctx -> ctx.contentType("application/json").result(Wire.encode(status.get())));
            cfg.routes.get("/", ctx -> ctx.html(StatusPage.render(status.get())));
        });
        app.start();
    }

    public int port() {
        return app.port();
    }

    /** Checks the runner's key against the router's keys file before the upgrade; a refusal is the API's JSON 401. */
    private static void authenticate(Context ctx, RouterKeys keys) {
        String runner = ctx.pathParam("runner");
        var entry = keys.authenticate(runner, ctx.header("Authorization"));
        if (entry.isPresent()) {
            ctx.attribute(ENTRY, entry.get());
            return;
        }
        try {
            ctx.res().setStatus(401);
            ctx.res()
                    .setHeader(
                            dev.baton.channelclient.connection.ChannelClient.REFUSED_BY,
                            "router"); // the runner names the router's command
            ctx.res().setContentType("application/json");
            ctx.res()
                    .getOutputStream()
                    .write(Wire.mapper()
                            .writeValueAsBytes(Map.of(
                                    "code",
                                    "unauthorized",
                                    "message",
                                    "runner key refused for runner '" + runner
                                            + "' by this router: give it a key with 'baton router keys rotate " + runner
                                            + "' (or 'baton router keys add " + runner
                                            + " --spec <spec>') where the router's keys file is")));
            ctx.res().flushBuffer();
        } catch (IOException e) {
            log.debug("could not write the refusal: {}", e.toString());
        }
        throw new io.javalin.http.UnauthorizedResponse("runner key refused");
    }

    /** One WebSocket session; sends are serialized (the loop and the HTTP threads may both send). */
    private static final class SessionLink implements Link {
        private final WsContext ctx;
        private final ReentrantLock lock = new ReentrantLock();

        SessionLink(WsContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void send(ServerMessage message) {
            lock.lock();
            try {
                if (ctx.session.isOpen()) ctx.send(Wire.encode(message));
            } catch (RuntimeException e) {
                log.debug("send to a runner failed: {}", e.toString());
            } finally {
                lock.unlock();
            }
        }

        @Override
        public String remoteAddress() {
            return RunnerHost.address(ctx.session.getRemoteSocketAddress());
        }

        @Override
        public void close(int code, String reason) {
            try {
                ctx.closeSession(code, reason);
            } catch (RuntimeException e) {
                log.debug("close failed: {}", e.toString());
            }
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}

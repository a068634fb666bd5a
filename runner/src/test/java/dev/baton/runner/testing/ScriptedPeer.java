package dev.baton.runner.testing;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import io.javalin.Javalin;
import io.javalin.http.UnauthorizedResponse;
import io.javalin.websocket.WsContext;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * A scripted WebSocket peer standing in for the server's runner channel, which lands separately
 * (the real end-to-end tests come with the integration). It speaks the wire protocol on a real
 * socket — Javalin on 127.0.0.1, ephemeral port — checks the bearer key, records every message
 * the runner sends, and answers with whatever the test's script returns.
 */
public final class ScriptedPeer implements AutoCloseable {
    private final String key;
    private final BlockingQueue<RunnerMessage> received = new LinkedBlockingQueue<>();
    private final List<RunnerMessage> all = new CopyOnWriteArrayList<>();
    private volatile BiFunction<ScriptedPeer, RunnerMessage, List<ServerMessage>> script;
    private volatile WsContext session;
    private volatile int connections;
    private Javalin app;
    private int port;

    public ScriptedPeer(String key, BiFunction<ScriptedPeer, RunnerMessage, List<ServerMessage>> script) {
        this.key = key;
        this.script = script;
        start(0);
    }

    private void start(int fixedPort) {
        app = Javalin.create(config -> {
                    config.startup.showJavalinBanner = false;
                    config.routes.wsBeforeUpgrade("/v0/runners/{runner}/channel", ctx -> {
                        if (!("Bearer " + key).equals(ctx.header("Authorization"))) throw new UnauthorizedResponse();
                    });
                    config.routes.ws("/v0/runners/{runner}/channel", ws -> {
                        ws.onConnect(ctx -> {
                            ctx.session.setIdleTimeout(Duration.ofMinutes(5));
                            session = ctx;
                            connections++;
                        });
                        ws.onMessage(ctx -> {
                            RunnerMessage m = Wire.decodeRunnerMessage(ctx.message());
                            all.add(m);
                            received.add(m);
                            for (ServerMessage reply : script.apply(this, m)) ctx.send(Wire.encode(reply));
                        });
                    });
                })
                .start("127.0.0.1", fixedPort);
        port = app.port();
    }

    /** The default answers of a well-behaved server: ack job-scoped messages, no_job for ready is left to the script. */
    public static ServerMessage.Ack ackFor(RunnerMessage m) {
        return switch (m) {
            case RunnerMessage.JobScoped s -> new ServerMessage.Ack(s.job());
            case RunnerMessage.Heartbeat h -> new ServerMessage.Ack(h.job());
            case RunnerMessage.Ready r -> new ServerMessage.Ack(null);
            case RunnerMessage.PullToken p -> new ServerMessage.Ack(p.job()); // no script here asks for a pull token
            case RunnerMessage.Calibration c -> new ServerMessage.Ack(null); // no agent here calibrates
        };
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public void script(BiFunction<ScriptedPeer, RunnerMessage, List<ServerMessage>> script) {
        this.script = script;
    }

    /** Sends a message to the runner on the current connection. */
    public void send(ServerMessage message) {
        // The client may see the upgrade complete a moment before the server's onConnect ran.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (session == null && System.nanoTime() < deadline) Thread.onSpinWait();
        if (session == null) throw new AssertionError("no runner connected");
        session.send(Wire.encode(message));
    }

    /**
     * Waits until the peer has seen {@code n} connections: the client may see the upgrade
     * complete a moment before the server's onConnect ran and made it the current one.
     */
    public void awaitConnections(int n, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (connections < n) {
            if (System.nanoTime() > deadline)
                throw new AssertionError(connections + " connection(s), not " + n + ", within " + timeout);
            Thread.sleep(5);
        }
    }

    /** Closes the current connection with a close code, as the server does (4001 replaced, 4003 shutdown). */
    public void closeCurrent(int code, String reason) {
        WsContext s = session;
        if (s == null) throw new AssertionError("no runner connected");
        s.closeSession(code, reason);
    }

    public int connections() {
        return connections;
    }

    /** Next message of the given type, skipping others (heartbeats); fails after the timeout. */
    public <T extends RunnerMessage> T await(Class<T> type, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            RunnerMessage m = left <= 0 ? null : received.poll(left, TimeUnit.NANOSECONDS);
            if (m == null)
                throw new AssertionError("no " + type.getSimpleName() + " within " + timeout + "; got " + all);
            if (type.isInstance(m)) return type.cast(m);
        }
    }

    /** Every message received so far, in order. */
    public List<RunnerMessage> all() {
        return List.copyOf(all);
    }

    /** Simulates a server restart: the socket goes away, and a new server comes up on the same port. */
    public void restart() {
        stop();
        start(port);
    }

    public void stop() {
        app.stop();
    }

    @Override
    public void close() {
        app.stop();
    }
}

package dev.baton.dispatch;

import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.RunnerCapabilities;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.store.KnownMachine;
import dev.baton.store.Runner;
import io.javalin.websocket.WsContext;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.websocket.api.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open channel of one runner. Sends are serialized (Jetty allows one outstanding write per
 * session). {@link #lastValidMessage} is the read timer: only valid protocol messages move it.
 */
public final class RunnerSession {
    private static final Logger LOG = LoggerFactory.getLogger(RunnerSession.class);

    /** Close codes Baton uses (4000–4999 are private-use in RFC 6455). */
    public static final int CLOSE_REPLACED = 4001;

    public static final int CLOSE_HEARTBEAT_TIMEOUT = 4002;
    public static final int CLOSE_SHUTDOWN = 4003;
    /** The runner opened its channel more often than runner_connects_per_minute allows (issue 41). */
    public static final int CLOSE_TOO_MANY_CONNECTS = 4029;

    private final Runner runner;
    private final WsContext ws;
    private final ReentrantLock sendLock = new ReentrantLock();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private volatile Instant lastValidMessage;
    private final Instant connected;
    /** The last drain directive sent on this channel (the console shows it); RUNNING until one is. */
    private volatile DrainState drainState = DrainState.RUNNING;

    private volatile RunnerCapabilities capabilities;
    /** The labels this connection last reported in {@code ready} (null: none reported yet). */
    private volatile java.util.Map<String, String> labels;

    public RunnerSession(Runner runner, WsContext ws, Instant connected) {
        this.connected = connected;
        this.runner = runner;
        this.ws = ws;
        this.lastValidMessage = connected;
    }

    public Runner runner() {
        return runner;
    }

    public long runnerId() {
        return runner.id();
    }

    public String id() {
        return ws.sessionId();
    }

    public Instant connected() {
        return connected;
    }

    public DrainState drainState() {
        return drainState;
    }

    public Instant lastValidMessage() {
        return lastValidMessage;
    }

    public void touch(Instant now) {
        lastValidMessage = now;
    }

    /** True when a {@code ready}'s labels differ from what this connection last stored (worth a store write). */
    public boolean labelsChanged(java.util.Map<String, String> reported) {
        return reported != null && !reported.equals(labels);
    }

    /** The labels this connection reported, once the store holds them. */
    public void labelsStored(java.util.Map<String, String> stored) {
        labels = stored;
    }

    /**
     * The image digests the runner last reported holding, most recent first (image affinity,
     * docs/scheduling.md), or null when this connection reported none (older runners, executors
     * without an image cache): then it is neither warm nor cold.
     */
    public java.util.List<dev.baton.protocol.value.ImageDigest> heldImages() {
        return heldImages;
    }

    /** Records a {@code ready}'s or heartbeat's {@code images}; null (absent) keeps the last report. */
    public void reportImages(java.util.List<dev.baton.protocol.value.ImageDigest> images) {
        if (images != null) heldImages = images;
    }

    private volatile java.util.List<dev.baton.protocol.value.ImageDigest> heldImages;

    /** The machine this connection last reported in {@code ready}, once the store holds it (issue 41); null before. */
    private volatile KnownMachine machine;

    /** Where the connection came from, as this server sees it (an IP address), or null. */
    private volatile String remoteAddress;

    public KnownMachine machine() {
        return machine;
    }

    /** True when {@code reported} differs from what the store holds for this connection (worth a store write). */
    public boolean machineChanged(RunnerHost reported) {
        KnownMachine m = machine;
        return m == null || !m.host().equals(reported);
    }

    public void machineStored(KnownMachine stored) {
        machine = stored;
    }

    public String remoteAddress() {
        return remoteAddress;
    }

    public void remoteAddress(String address) {
        remoteAddress = address;
    }

    public java.util.Optional<RunnerCapabilities> capabilities() {
        return java.util.Optional.ofNullable(capabilities);
    }

    /** Records what a {@code ready} reported; true when it differs from what was known (worth a log line). */
    public boolean report(RunnerCapabilities reported) {
        if (reported == null || reported.equals(capabilities)) return false;
        capabilities = reported;
        return true;
    }

    public boolean isOpen() {
        return open.get();
    }

    /** Sends a message; a closed or failing connection is logged, never thrown to the caller. */
    public void send(ServerMessage message) {
        if (!open.get()) return;
        if (message instanceof ServerMessage.Drain d) drainState = d.state();
        String json = Wire.encode(message);
        sendLock.lock();
        try {
            ws.send(json);
        } catch (RuntimeException e) {
            LOG.debug("send to runner {} failed: {}", runner.slug(), e.toString());
        } finally {
            sendLock.unlock();
        }
    }

    /** Marks the session closed; returns true only for the first call. */
    public boolean markClosed() {
        return open.compareAndSet(true, false);
    }

    public void close(int code, String reason) {
        if (!markClosed()) return;
        try {
            ws.closeSession(code, reason);
        } catch (RuntimeException e) {
            LOG.debug("closing session of runner {} failed: {}", runner.slug(), e.toString());
        }
    }

    /**
     * Closes with {@code code} and {@code reason}; the future completes once the close frame is
     * written (or writing it failed), so a shutdown can wait for it before stopping Jetty, which
     * would otherwise close the socket with its own 1001.
     */
    public CompletableFuture<Void> closeWritten(int code, String reason) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        if (!markClosed()) return CompletableFuture.completedFuture(null);
        try {
            ws.session.close(code, reason, Callback.from(() -> written.complete(null), written::completeExceptionally));
        } catch (RuntimeException e) {
            LOG.debug("closing session of runner {} failed: {}", runner.slug(), e.toString());
            written.complete(null);
        }
        return written;
    }
}

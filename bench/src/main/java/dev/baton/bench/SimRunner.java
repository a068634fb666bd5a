package dev.baton.bench;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A simulated runner speaking the real protocol over a real WebSocket (java.net.http). In
 * {@link Mode#COMPLETE} it finishes every job at once: ready → job → running → ack → completed →
 * ack → ready, with up to {@code slots} jobs at a time. In {@link Mode#HOLD} it starts each job
 * and keeps it running, so its heartbeats name a job and lease. Heartbeats are sent by the caller
 * ({@link #heartbeat}); their acks are timed here. Acks arrive in the order the messages were
 * sent (the server handles one session's messages one at a time), so a FIFO of send times
 * matches each heartbeat ack to its heartbeat.
 */
final class SimRunner implements WebSocket.Listener {
    enum Mode {
        COMPLETE,
        HOLD
    }

    /** A {@code job} message and when it arrived (System.nanoTime). */
    record Arrival(long nanos, ClaimedJob job) {}

    private enum Step {
        RUNNING_SENT,
        COMPLETED_SENT,
        HELD
    }

    private static final class Attempt {
        final LeaseId lease;
        Step step = Step.RUNNING_SENT;

        Attempt(LeaseId lease) {
            this.lease = lease;
        }
    }

    private static final List<IterationResult> RESULTS = List.of(new IterationResult(0, "ok", "", Map.of()));

    private final Mode mode;
    private final int slots;
    private final Consumer<Arrival> onJob;
    private final LatencyRecorder heartbeatAcks;
    private final Map<JobUuid, Attempt> attempts = new HashMap<>();
    private final ArrayDeque<Long> heartbeatsSent = new ArrayDeque<>();
    private final StringBuilder partial = new StringBuilder();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong problems = new AtomicLong();
    private final AtomicLong acksReceived = new AtomicLong();
    private final CompletableFuture<Integer> closed = new CompletableFuture<>();
    private volatile String lastProblem;
    private volatile boolean recordHeartbeats;
    private WebSocket ws;
    private CompletableFuture<?> sendTail = CompletableFuture.completedFuture(null);
    private int outstanding;

    SimRunner(Mode mode, int slots, Consumer<Arrival> onJob, LatencyRecorder heartbeatAcks) {
        this.mode = mode;
        this.slots = slots;
        this.onJob = onJob;
        this.heartbeatAcks = heartbeatAcks;
    }

    /** Opens the channel; completes when the WebSocket is open. */
    CompletableFuture<SimRunner> connect(HttpClient client, URI channel, String key) {
        return client.newWebSocketBuilder()
                .header("Authorization", "Bearer " + key)
                .connectTimeout(Duration.ofSeconds(30))
                .buildAsync(channel, this)
                .thenApply(w -> this);
    }

    /** Asks for work with every free slot. */
    synchronized void ready() {
        int free = slots - attempts.size();
        if (free <= 0 || outstanding > 0) return;
        outstanding = free;
        send(new RunnerMessage.Ready(900, "linux", "x86_64", "bench", free));
    }

    /** One heartbeat per held job, or a bare one when none is held. */
    synchronized void heartbeat() {
        if (ws == null || ws.isOutputClosed()) return;
        boolean any = false;
        for (var e : attempts.entrySet()) {
            if (e.getValue().step != Step.HELD) continue;
            heartbeatsSent.addLast(System.nanoTime());
            send(new RunnerMessage.Heartbeat(e.getKey(), e.getValue().lease));
            any = true;
        }
        if (!any) {
            heartbeatsSent.addLast(System.nanoTime());
            send(new RunnerMessage.Heartbeat(null, null));
        }
    }

    /** Sends a line of stdout for a held job (its ack is matched like a heartbeat's, with nothing timed). */
    synchronized void log(ClaimedJob job, long seq, String text) {
        send(RunnerMessage.Log.text(
                job.uuid(), job.lease(), seq, dev.baton.protocol.message.LogStream.STDOUT, 0, text));
    }

    /** Whether heartbeat ack latencies go to the recorder (off during warm-up). */
    void recordHeartbeats(boolean on) {
        recordHeartbeats = on;
    }

    synchronized int held() {
        return (int) attempts.values().stream().filter(a -> a.step == Step.HELD).count();
    }

    long completed() {
        return completed.get();
    }

    long acksReceived() {
        return acksReceived.get();
    }

    /** Messages that should not happen in a clean run (error, stale, cancel, no_job with work queued…). */
    long problems() {
        return problems.get();
    }

    String lastProblem() {
        return lastProblem;
    }

    boolean isOpen() {
        return !closed.isDone();
    }

    void close() {
        WebSocket w;
        synchronized (this) {
            w = ws;
        }
        if (w == null) return;
        w.sendClose(WebSocket.NORMAL_CLOSURE, "bench done")
                .orTimeout(5, java.util.concurrent.TimeUnit.SECONDS)
                .whenComplete((r, e) -> w.abort());
    }

    private synchronized void send(RunnerMessage message) {
        String text = Wire.encode(message);
        WebSocket w = ws;
        sendTail = sendTail.handle((r, e) -> null).thenCompose(x -> w.sendText(text, true));
    }

    @Override
    public void onOpen(WebSocket webSocket) {
        synchronized (this) {
            ws = webSocket;
        }
        webSocket.request(1);
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        long now = System.nanoTime();
        partial.append(data);
        if (last) {
            String text = partial.toString();
            partial.setLength(0);
            ServerMessage message;
            try {
                message = Wire.decodeServerMessage(text);
            } catch (RuntimeException e) {
                // Counted, not thrown: an exception here would silently stop this listener.
                problems.incrementAndGet();
                lastProblem = "undecodable server message: " + e.getMessage();
                webSocket.request(1);
                return null;
            }
            handle(message, now);
        }
        webSocket.request(1);
        return null;
    }

    private synchronized void handle(ServerMessage message, long now) {
        switch (message) {
            case ServerMessage.Job j -> {
                ClaimedJob job = j.job();
                if (outstanding > 0) outstanding--;
                attempts.put(job.uuid(), new Attempt(job.lease()));
                if (onJob != null) onJob.accept(new Arrival(now, job));
                send(new RunnerMessage.Running(job.uuid(), job.lease()));
            }
            case ServerMessage.Ack a -> {
                acksReceived.incrementAndGet();
                Attempt attempt = a.job() == null ? null : attempts.get(a.job());
                if (attempt == null || attempt.step == Step.HELD) {
                    Long sent = heartbeatsSent.pollFirst();
                    if (sent != null && recordHeartbeats && heartbeatAcks != null) heartbeatAcks.record(now - sent);
                } else if (attempt.step == Step.RUNNING_SENT) {
                    if (mode == Mode.HOLD) {
                        attempt.step = Step.HELD;
                    } else {
                        attempt.step = Step.COMPLETED_SENT;
                        send(new RunnerMessage.Completed(a.job(), attempt.lease, RESULTS));
                    }
                } else {
                    attempts.remove(a.job());
                    completed.incrementAndGet();
                    ready();
                }
            }
            case ServerMessage.NoJob n -> {
                outstanding = 0;
                ready();
            }
            case ServerMessage.Welcome w -> {} // informational, first on every connection
            default -> {
                problems.incrementAndGet();
                lastProblem = Wire.encode(message);
            }
        }
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        closed.complete(statusCode);
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        lastProblem = String.valueOf(error);
        closed.complete(-1);
    }
}

package dev.baton.runner.machine;

import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.IterationResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner agent as a sans-IO state machine: {@link #handle(Input)} maps an input to the
 * effects the driver must carry out, in order. It never touches a socket, a file or a process, so
 * every path (reconnects, stale leases, shutdown during execution) is tested with plain inputs.
 *
 * <p>State: the link (disconnected, connecting, connected), the mode (running, quiet,
 * terminate; seed 002), the jobs held (preparing, running, stopping), and the terminal results
 * not yet acknowledged. Input that does not fit the state is logged and changes nothing.
 *
 * <p>Acknowledgements carry only a job id, and the server acknowledges every message in order, so
 * the machine counts the job-scoped messages it sent and the acks it received per job on the
 * current connection: a terminal result is acknowledged by the ack that matches its own position,
 * never by the late ack of an earlier heartbeat. Counts reset with the connection; unacknowledged
 * results are resent first on the next one.
 */
public final class RunnerMachine {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    /** Exit status when the operator asked the agent to stop, after a clean drain. */
    public static final int EXIT_OK = 0;
    /** Exit status when the server refused the key. */
    public static final int EXIT_REFUSED = 2;
    /** Exit status asking the supervisor to start the (updated) agent again. */
    public static final int EXIT_RESTART = 75;
    /**
     * A result unacknowledged this long on a live connection is sent again (resending a terminal
     * message is always safe, seed 000). This also recovers if the server answered one of the job's
     * earlier messages with something other than an ack, which would shift the ack count.
     */
    static final Duration RESEND_AFTER = Duration.ofSeconds(10);

    private enum Link { DISCONNECTED, CONNECTING, CONNECTED }

    private enum Mode { RUNNING, QUIET, TERMINATE }

    private enum Phase { PREPARING, PREPARED, RUNNING }

    private enum StopReason { CANCEL, STALE, TIMEOUT, SHUTDOWN }

    /** One job this runner holds. */
    private static final class Held {
        final ClaimedJob job;
        Phase phase = Phase.PREPARING;
        StopReason stop;
        Instant deadline;
        String progress = "claimed";
        /** The machine's state read before the workload started; sent with every {@code running}. */
        MachineFingerprint fingerprint;
        final LiveLog live = new LiveLog();

        Held(ClaimedJob job) {
            this.job = job;
        }

        JobUuid id() {
            return job.uuid();
        }

        LeaseId lease() {
            return job.lease();
        }
    }

    /** A terminal result waiting for its ack. */
    private static final class Pending {
        final RunnerMessage.Terminal message;
        int sends;
        /** Position among this connection's messages for the job whose ack acknowledges it; 0 = not sent yet. */
        int ackAt;
        /** When it was last sent; an ack that does not come within {@link #RESEND_AFTER} triggers a resend. */
        Instant sentAt;

        Pending(RunnerMessage.Terminal message, int sends) {
            this.message = message;
            this.sends = sends;
        }
    }

    private final MachineConfig config;
    private final LogBudget logBudget;
    private final RandomGenerator random;
    private final List<RunnerMessage.Terminal> recoveredResults;
    private final List<InflightRecord> recoveredInflight;
    private final Map<JobUuid, String> killedLeftovers;

    private boolean started;
    private Link link = Link.DISCONNECTED;
    private Mode mode = Mode.RUNNING;
    private boolean shuttingDown;
    private boolean exited;
    private Instant now = Instant.EPOCH;
    private Instant graceDeadline;
    private Instant exitDeadline;
    private int reconnectAttempt;
    /** Replacements (close 4001) in a row; not reset by valid messages, only by a connection that stayed up. */
    private int replacements;
    /** When the current connection opened, or null. */
    private Instant openedAt;
    /**
     * Jobs the server may still hand out for our last {@code ready}: the slots it asked for, less
     * the jobs received since. A new {@code ready} is sent only when this is 0, so a freed slot is
     * never announced while jobs of the previous wait may still be on their way (the server would
     * open a second wait and send more jobs than there are slots).
     */
    private int readyRemaining;
    /** The executor's held images (null: it keeps none, so none are reported); see {@link Input.ImagesHeld}. */
    private List<dev.baton.protocol.value.ImageDigest> heldImages;
    /** The server has not been told the current {@link #heldImages} on this link yet. */
    private boolean heldImagesUnsent;
    private ServerMessage.Update pendingUpdate;
    private boolean updating;

    private final Map<JobUuid, Held> jobs = new LinkedHashMap<>();
    private final Map<JobUuid, Pending> pending = new LinkedHashMap<>();
    /** Declines that could not be sent yet (decided while disconnected, e.g. after a restart). */
    private final List<RunnerMessage.Declined> unsentDeclines = new ArrayList<>();
    private final Map<JobUuid, Integer> sentOnLink = new LinkedHashMap<>();
    private final Map<JobUuid, Integer> ackedOnLink = new LinkedHashMap<>();

    /**
     * @param recoveredResults terminal results found in the outbox, with how often each was sent
     * @param recoveredInflight attempts a previous agent held when it stopped
     */
    public RunnerMachine(MachineConfig config, RandomGenerator random,
                         Map<RunnerMessage.Terminal, Integer> recoveredResults, List<InflightRecord> recoveredInflight) {
        this(config, random, recoveredResults, recoveredInflight, LogBudget.DEFAULT);
    }

    /** @param logBudget how much live output is streamed; see {@link LogBudget} */
    public RunnerMachine(MachineConfig config, RandomGenerator random,
                         Map<RunnerMessage.Terminal, Integer> recoveredResults, List<InflightRecord> recoveredInflight,
                         LogBudget logBudget) {
        this(config, random, recoveredResults, recoveredInflight, Map.of(), logBudget);
    }

    /**
     * @param killedLeftovers what the executor's start-up sweep found still running and killed,
     *     per job (e.g. "process group 4242"); named in what is reported for the job
     */
    public RunnerMachine(MachineConfig config, RandomGenerator random,
                         Map<RunnerMessage.Terminal, Integer> recoveredResults, List<InflightRecord> recoveredInflight,
                         Map<JobUuid, String> killedLeftovers, LogBudget logBudget) {
        this.killedLeftovers = Map.copyOf(killedLeftovers);
        this.config = config;
        this.logBudget = logBudget;
        this.random = random;
        this.recoveredResults = List.copyOf(recoveredResults.keySet());
        recoveredResults.forEach((message, sends) -> pending.put(message.job(), new Pending(message, sends)));
        this.recoveredInflight = List.copyOf(recoveredInflight);
    }

    public static RunnerMachine fresh(MachineConfig config, RandomGenerator random) {
        return new RunnerMachine(config, random, Map.of(), List.of());
    }

    public static RunnerMachine fresh(MachineConfig config, RandomGenerator random, LogBudget logBudget) {
        return new RunnerMachine(config, random, Map.of(), List.of(), logBudget);
    }

    public List<Effect> handle(Input input) {
        List<Effect> out = new ArrayList<>();
        if (exited) {
            log.debug("ignoring {} after exit", input.getClass().getSimpleName());
            return out;
        }
        if (!started && !(input instanceof Input.Start)) {
            unexpected(input, "before start");
            return out;
        }
        switch (input) {
            case Input.Start s -> onStart(s, out);
            case Input.ConnectionOpened o -> onOpened(o, out);
            case Input.ConnectionClosed c -> onClosed(c, out);
            case Input.ReconnectDue r -> onReconnectDue(r, out);
            case Input.Received r -> onReceived(r.message(), out);
            case Input.Malformed m -> log.warn("server sent an invalid message: {}", m.reason());
            case Input.Tick t -> onTick(t, out);
            case Input.SignalReceived s -> onSignal(s, out);
            case Input.PrepareProgress p -> onProgress(p, out);
            case Input.Prepared p -> onPrepared(p, out);
            case Input.PrepareDeclined d -> onDeclined(d, out);
            case Input.Started s -> onStarted(s, out);
            case Input.Output o -> onOutput(o, out);
            case Input.Finished f -> onFinished(f, out);
            case Input.UpdateInstalled u -> onUpdateInstalled(u, out);
            case Input.UpdateFailed u -> onUpdateFailed(u, out);
            case Input.ImagesHeld i -> {
                if (!i.images().equals(heldImages)) {
                    heldImages = i.images();
                    heldImagesUnsent = true;
                }
            }
        }
        return out;
    }

    // ---- lifecycle -------------------------------------------------------------------------

    private void onStart(Input.Start s, List<Effect> out) {
        if (started) {
            unexpected(s, "already started");
            return;
        }
        started = true;
        now = s.now();
        for (InflightRecord record : recoveredInflight) {
            String killed = killedLeftovers.get(record.job());
            String leftovers = killed == null ? "" : "; killed what it left running: " + killed;
            if (pending.containsKey(record.job())) {
                // The result was written before the crash: it is the better report.
                out.add(new Effect.DeleteInflight(record.job()));
            } else if (record.hasStarted()) {
                // Lost: whatever it was doing is gone (and was killed at this start, if it still ran).
                var failed = new RunnerMessage.Failed(record.job(), record.lease(), List.of(),
                        "runner restarted during execution" + leftovers);
                pending.put(record.job(), new Pending(failed, 0));
                out.add(new Effect.WriteOutbox(failed, 0));
                out.add(new Effect.DeleteInflight(record.job()));
            } else {
                // Never started as far as the server knows: nothing to fail, the job goes back to the queue.
                unsentDeclines.add(new RunnerMessage.Declined(record.job(), record.lease(), DeclineCode.OTHER,
                        "runner restarted while preparing" + leftovers));
                out.add(new Effect.DeleteInflight(record.job()));
            }
        }
        for (var leftover : killedLeftovers.entrySet()) {
            boolean known = pending.containsKey(leftover.getKey())
                    || recoveredInflight.stream().anyMatch(r -> r.job().equals(leftover.getKey()));
            if (!known) log.warn("job {}: killed {} left running by a previous agent; no attempt of it is recorded here",
                    leftover.getKey(), leftover.getValue());
        }
        if (!recoveredResults.isEmpty()) log.info("{} result(s) from a previous run wait to be delivered", recoveredResults.size());
        link = Link.CONNECTING;
        out.add(new Effect.Connect());
    }

    private void onOpened(Input.ConnectionOpened o, List<Effect> out) {
        now = o.now();
        if (link != Link.CONNECTING) {
            unexpected(o, "link is " + link);
            return;
        }
        link = Link.CONNECTED;
        openedAt = now;
        sentOnLink.clear();
        ackedOnLink.clear();
        readyRemaining = 0;
        heldImagesUnsent = heldImages != null; // a new connection (perhaps another node) knows nothing yet
        // Results first (seed 000: resent on the next connection before going idle).
        for (var it = pending.values().iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.sends >= config.maxSends()) {
                log.error("dropping the {} result of job {}: sent {} times without an acknowledgement",
                        eventName(p.message), p.message.job(), p.sends);
                it.remove();
                out.add(new Effect.DeleteOutbox(p.message.job()));
                continue;
            }
            sendResult(p, out);
        }
        for (RunnerMessage.Declined d : unsentDeclines) send(d, out);
        unsentDeclines.clear();
        // Tell the server which attempts are still alive here (running again is idempotent).
        for (Held h : jobs.values()) {
            if (h.stop == StopReason.STALE) continue;
            if (h.phase == Phase.RUNNING) send(new RunnerMessage.Running(h.id(), h.lease(), h.fingerprint), out);
            else send(new RunnerMessage.Preparing(h.id(), h.lease(), h.progress), out);
        }
        maybeReady(out);
        maybeExit(out);
    }

    private void onClosed(Input.ConnectionClosed c, List<Effect> out) {
        now = c.now();
        if (link == Link.DISCONNECTED) {
            unexpected(c, "already disconnected");
            return;
        }
        boolean wasConnected = link == Link.CONNECTED;
        Instant opened = openedAt;
        openedAt = null;
        link = Link.DISCONNECTED;
        readyRemaining = 0;
        for (Pending p : pending.values()) p.ackAt = 0;
        if (c.fatal()) {
            log.error("the server refused this runner: {}", c.reason());
            exit(EXIT_REFUSED, "server refused the runner: " + c.reason(), out);
            return;
        }
        if (shuttingDown && jobs.isEmpty()) {
            // Unacknowledged results stay in the outbox for the next start.
            exit(EXIT_OK, "shut down", out);
            return;
        }
        if (opened != null && !now.isBefore(opened.plus(config.backoffMax()))) replacements = 0;
        if (c.replaced()) {
            // Another connection with this runner's key took the channel: most likely a second agent.
            // Taking it back at once would make the two replace each other forever, so back off,
            // more after every replacement; a connection that stayed up long enough starts over.
            replacements++;
            Duration delay = backoff(replacements);
            log.warn("channel replaced by another connection of this runner ({}; {} time(s) in a row): is another agent "
                    + "running with this runner's key? Reconnecting in {} ms", c.reason(), replacements, delay.toMillis());
            out.add(new Effect.ScheduleReconnect(delay));
            return;
        }
        Duration delay = backoff(reconnectAttempt++);
        log.info("channel {}: {}; reconnecting in {} ms", wasConnected ? "closed" : "not opened", c.reason(), delay.toMillis());
        out.add(new Effect.ScheduleReconnect(delay));
    }

    private void onReconnectDue(Input.ReconnectDue r, List<Effect> out) {
        now = r.now();
        if (link != Link.DISCONNECTED) {
            unexpected(r, "link is " + link);
            return;
        }
        link = Link.CONNECTING;
        out.add(new Effect.Connect());
    }

    /** Exponential backoff with jitter: a random delay in [d/2, d], d = base·2^attempt capped at max. */
    Duration backoff(int attempt) {
        long base = config.backoffBase().toMillis();
        long max = config.backoffMax().toMillis();
        long d = attempt >= 30 ? max : Math.min(max, base << attempt);
        long half = d / 2;
        return Duration.ofMillis(half + (half == 0 ? 0 : random.nextLong(half + 1)));
    }

    // ---- server messages -------------------------------------------------------------------

    private void onReceived(ServerMessage message, List<Effect> out) {
        if (link != Link.CONNECTED) {
            unexpected(new Input.Received(message), "link is " + link);
            return;
        }
        reconnectAttempt = 0; // a valid message proves the connection works
        switch (message) {
            case ServerMessage.Ack a -> onAck(a, out);
            case ServerMessage.Job j -> onJob(j.job(), out);
            case ServerMessage.NoJob n -> {
                if (readyRemaining == 0) log.debug("no_job without an outstanding ready");
                readyRemaining = 0;
                maybeReady(out);
            }
            case ServerMessage.Cancel c -> onCancel(c, out);
            case ServerMessage.Stale s -> onStale(s, out);
            case ServerMessage.Drain d -> onDrain(d.state(), out);
            case ServerMessage.Update u -> onUpdate(u, out);
            case ServerMessage.Error e -> log.warn("server error {}: {}", e.code(), e.message());
            case ServerMessage.Welcome w -> { } // logged by the driver, which knows the server and executor
        }
    }

    private void onAck(ServerMessage.Ack ack, List<Effect> out) {
        if (ack.job() == null) return; // ack of ready or a bare heartbeat: liveness only
        JobUuid job = ack.job();
        int sent = sentOnLink.getOrDefault(job, 0);
        int acked = ackedOnLink.getOrDefault(job, 0);
        if (acked >= sent) {
            unexpected(new Input.Received(ack), "nothing unacknowledged for that job");
            return;
        }
        ackedOnLink.put(job, ++acked);
        Pending p = pending.get(job);
        if (p != null && p.ackAt > 0 && acked >= p.ackAt) {
            pending.remove(job);
            out.add(new Effect.DeleteOutbox(job));
            log.info("job {}: {} acknowledged", job, eventName(p.message));
            maybeReady(out);
            maybeExit(out);
        }
    }

    private void onJob(ClaimedJob job, List<Effect> out) {
        if (readyRemaining > 0) readyRemaining--;
        String refusal = refusal(job);
        if (refusal != null) {
            log.info("declining job {}: {}", job.uuid(), refusal);
            DeclineCode code = shuttingDown ? DeclineCode.SHUTTING_DOWN : DeclineCode.OTHER;
            send(new RunnerMessage.Declined(job.uuid(), job.lease(), code, refusal), out);
            maybeReady(out);
            return;
        }
        Held h = new Held(job);
        jobs.put(job.uuid(), h);
        out.add(new Effect.WriteInflight(new InflightRecord(job.uuid(), job.lease(), null)));
        send(new RunnerMessage.Preparing(job.uuid(), job.lease(), h.progress), out);
        out.add(new Effect.StartPrepare(job));
        maybeReady(out);
    }

    /** Why this runner will not take the job, or null. Declining puts it back in the queue. */
    private String refusal(ClaimedJob job) {
        if (jobs.containsKey(job.uuid()) || pending.containsKey(job.uuid())) return "runner already holds this job";
        if (mode != Mode.RUNNING || shuttingDown) return "runner is " + (shuttingDown ? "shutting down" : "quiet");
        if (updating || pendingUpdate != null) return "runner is updating";
        if (jobs.size() >= config.slots()) return "no free slot (slots=" + config.slots() + ")";
        if (job.spec() != null && job.spec().architecture() != null) {
            if (config.arch().isEmpty() || config.arch().get() != job.spec().architecture()) {
                return "architecture " + job.spec().architecture().wireName() + " not supported by this runner ("
                        + config.arch().map(a -> a.wireName()).orElse("unknown") + ")";
            }
        }
        return null;
    }

    private void onCancel(ServerMessage.Cancel c, List<Effect> out) {
        Held h = jobs.get(c.job());
        if (h == null || !h.lease().matches(c.lease())) {
            if (pending.containsKey(c.job())) {
                log.info("cancel for job {} whose result is already waiting for its ack", c.job());
            } else {
                unexpected(new Input.Received(c), "no such attempt here");
            }
            return;
        }
        if (h.stop != null) {
            log.debug("job {} already stopping ({})", h.id(), h.stop);
            if (h.stop == StopReason.SHUTDOWN || h.stop == StopReason.TIMEOUT) h.stop = StopReason.CANCEL;
            return;
        }
        log.info("job {}: cancel requested ({})", h.id(), c.reason());
        h.stop = StopReason.CANCEL;
        long grace = Math.max(0, Math.min(config.stopGrace().toSeconds(), c.deadlineSeconds() - 1L));
        out.add(new Effect.StopWorkload(h.id(), Duration.ofSeconds(grace)));
    }

    private void onStale(ServerMessage.Stale s, List<Effect> out) {
        Pending p = pending.get(s.job());
        if (p != null && p.message.lease().matches(s.lease())) {
            log.warn("job {}: the server calls the lease stale ({}); not resending its result", s.job(), s.reason());
            pending.remove(s.job());
            out.add(new Effect.DeleteOutbox(s.job()));
            maybeReady(out);
            maybeExit(out);
            return;
        }
        Held h = jobs.get(s.job());
        if (h == null || !h.lease().matches(s.lease())) {
            unexpected(new Input.Received(s), "no such attempt here");
            return;
        }
        log.warn("job {}: the server calls the lease stale ({}); stopping the work", s.job(), s.reason());
        boolean alreadyStopping = h.stop != null;
        h.stop = StopReason.STALE;
        if (!alreadyStopping) out.add(new Effect.StopWorkload(h.id(), Duration.ZERO));
    }

    private void onDrain(DrainState state, List<Effect> out) {
        switch (state) {
            case RUNNING -> resume(out);
            case QUIET -> quiet();
            case TERMINATE -> beginShutdown(out);
        }
    }

    private void onUpdate(ServerMessage.Update u, List<Effect> out) {
        if (updating) {
            unexpected(new Input.Received(u), "an update is already being installed");
            return;
        }
        pendingUpdate = u;
        log.info("update to version {} requested; taking no new jobs until it is installed", u.version());
        maybeApplyUpdate(out);
    }

    private void maybeApplyUpdate(List<Effect> out) {
        if (pendingUpdate == null || updating || !jobs.isEmpty()) return;
        updating = true;
        out.add(new Effect.ApplyUpdate(pendingUpdate));
        pendingUpdate = null;
    }

    private void onUpdateInstalled(Input.UpdateInstalled u, List<Effect> out) {
        if (!updating) {
            unexpected(u, "no update in progress");
            return;
        }
        exit(EXIT_RESTART, "updated to " + u.version() + "; restarting", out);
    }

    private void onUpdateFailed(Input.UpdateFailed u, List<Effect> out) {
        if (!updating) {
            unexpected(u, "no update in progress");
            return;
        }
        updating = false;
        log.error("update to {} failed, still running the current version: {}", u.version(), u.reason());
        maybeReady(out);
    }

    // ---- signals and time ------------------------------------------------------------------

    private void onSignal(Input.SignalReceived s, List<Effect> out) {
        now = s.now();
        switch (s.signal()) {
            case TERMINATE -> beginShutdown(out);
            case QUIET -> quiet();
            case RESUME -> resume(out);
        }
    }

    private void quiet() {
        if (mode == Mode.RUNNING) {
            log.info("quiet: taking no new jobs");
            mode = Mode.QUIET;
        }
    }

    private void resume(List<Effect> out) {
        if (shuttingDown) {
            log.info("not resuming: the runner is shutting down");
            return;
        }
        if (mode != Mode.RUNNING) log.info("running: taking jobs again");
        mode = Mode.RUNNING;
        maybeReady(out);
    }

    private void beginShutdown(List<Effect> out) {
        if (shuttingDown) {
            log.info("already shutting down");
            return;
        }
        shuttingDown = true;
        if (mode == Mode.RUNNING) mode = Mode.QUIET;
        graceDeadline = now.plus(config.grace());
        // After the grace period: stop time, then a little time for the results to be acknowledged.
        exitDeadline = graceDeadline.plus(config.stopGrace()).plus(Duration.ofSeconds(5));
        log.info("shutting down: {} job(s) in flight may finish within {} s", jobs.size(), config.grace().toSeconds());
        // Attempts that never started lose nothing by going back to the queue now.
        for (Held h : jobs.values()) {
            if (h.phase != Phase.RUNNING && h.stop == null) {
                h.stop = StopReason.SHUTDOWN;
                out.add(new Effect.StopWorkload(h.id(), Duration.ZERO));
            }
        }
        maybeExit(out);
    }

    private void onTick(Input.Tick t, List<Effect> out) {
        now = t.now();
        if (link == Link.CONNECTED) {
            if (jobs.isEmpty()) {
                out.add(new Effect.Send(new RunnerMessage.Heartbeat(null, null, imagesToReport())));
            }
            for (Held h : jobs.values()) {
                if (h.stop == StopReason.STALE) continue;
                if (h.phase == Phase.RUNNING) send(new RunnerMessage.Heartbeat(h.id(), h.lease(), imagesToReport()), out);
                else send(new RunnerMessage.Preparing(h.id(), h.lease(), h.progress), out);
            }
        }
        if (link == Link.CONNECTED) resendOverdueResults(out);
        for (Held h : jobs.values()) announceDrops(h, out);
        for (Held h : jobs.values()) {
            if (h.phase == Phase.RUNNING && h.stop == null && h.deadline != null && !now.isBefore(h.deadline)) {
                log.info("job {}: local timeout of {} s reached; stopping it", h.id(), h.job.timeout());
                h.stop = StopReason.TIMEOUT;
                out.add(new Effect.StopWorkload(h.id(), config.stopGrace()));
            }
        }
        if (shuttingDown && mode != Mode.TERMINATE && !now.isBefore(graceDeadline)) {
            mode = Mode.TERMINATE;
            log.info("grace period over: stopping {} job(s)", jobs.size());
            for (Held h : jobs.values()) {
                if (h.stop == null) {
                    h.stop = StopReason.SHUTDOWN;
                    out.add(new Effect.StopWorkload(h.id(), config.stopGrace()));
                }
            }
        }
        if (shuttingDown && exitDeadline != null && !now.isBefore(exitDeadline)) {
            if (!jobs.isEmpty()) log.error("exiting with {} job(s) that did not stop", jobs.size());
            if (!pending.isEmpty()) log.warn("exiting with {} unacknowledged result(s); they stay in the outbox", pending.size());
            exit(EXIT_OK, "shut down after the grace period", out);
            return;
        }
        maybeExit(out);
    }

    private void resendOverdueResults(List<Effect> out) {
        for (var it = pending.values().iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.ackAt == 0 || p.sentAt == null || now.isBefore(p.sentAt.plus(RESEND_AFTER))) continue;
            if (p.sends >= config.maxSends()) {
                log.error("dropping the {} result of job {}: sent {} times without an acknowledgement",
                        eventName(p.message), p.message.job(), p.sends);
                it.remove();
                out.add(new Effect.DeleteOutbox(p.message.job()));
                continue;
            }
            log.warn("job {}: no acknowledgement for {} after {} s; sending it again", p.message.job(), eventName(p.message),
                    RESEND_AFTER.toSeconds());
            // Whatever earlier message went unanswered will not be answered now: the next ack is the result's.
            JobUuid job = p.message.job();
            ackedOnLink.put(job, sentOnLink.getOrDefault(job, 0));
            sendResult(p, out);
        }
        if (pending.isEmpty()) {
            maybeReady(out);
            maybeExit(out);
        }
    }

    // ---- executor events -------------------------------------------------------------------

    private void onProgress(Input.PrepareProgress p, List<Effect> out) {
        Held h = jobs.get(p.job());
        if (h == null || h.phase != Phase.PREPARING) {
            unexpected(p, h == null ? "unknown job" : "job is " + h.phase);
            return;
        }
        h.progress = p.message();
        if (link == Link.CONNECTED && h.stop == null) send(new RunnerMessage.Preparing(h.id(), h.lease(), h.progress), out);
    }

    private void onPrepared(Input.Prepared p, List<Effect> out) {
        Held h = jobs.get(p.job());
        if (h == null || h.phase != Phase.PREPARING) {
            unexpected(p, h == null ? "unknown job" : "job is " + h.phase);
            return;
        }
        h.phase = Phase.PREPARED;
        h.fingerprint = p.fingerprint();
        // A stop requested meanwhile was already handed to the executor, which answers Finished.
        if (h.stop == null) out.add(new Effect.StartWorkload(h.id()));
    }

    private void onDeclined(Input.PrepareDeclined d, List<Effect> out) {
        Held h = jobs.get(d.job());
        if (h == null || h.phase == Phase.RUNNING) {
            unexpected(d, h == null ? "unknown job" : "job is running");
            return;
        }
        jobs.remove(h.id());
        out.add(new Effect.DeleteInflight(h.id()));
        if (h.stop == StopReason.STALE) {
            log.info("job {}: could not prepare ({}), lease already stale", h.id(), d.reason());
        } else if (h.stop == StopReason.CANCEL) {
            finish(new RunnerMessage.Canceled(h.id(), h.lease(), List.of()), out);
        } else {
            log.info("job {}: declined: {}", h.id(), d.reason());
            sendOrKeep(new RunnerMessage.Declined(h.id(), h.lease(), d.code().wireName(), d.reason(), d.fingerprint()), out);
        }
        afterJobEnded(out);
    }

    private void onStarted(Input.Started s, List<Effect> out) {
        Held h = jobs.get(s.job());
        if (h == null || h.phase != Phase.PREPARED) {
            unexpected(s, h == null ? "unknown job" : "job is " + h.phase);
            return;
        }
        h.phase = Phase.RUNNING;
        h.deadline = s.now().plusSeconds(h.job.timeout());
        out.add(new Effect.WriteInflight(new InflightRecord(h.id(), h.lease(), s.now())));
        if (h.stop == null && link == Link.CONNECTED) send(new RunnerMessage.Running(h.id(), h.lease(), h.fingerprint), out);
    }

    /**
     * Live output: each chunk goes out as a {@code log} message when the job is running, the
     * channel is up, the server keeps up (at most {@link LogBudget#maxUnacked()} of the job's
     * messages unacknowledged) and the rate budget has room; otherwise its bytes are counted and
     * announced by one {@code dropped} marker for that stream, sent before the stream's next text
     * that fits the budget (or on a tick once the output has been quiet and the budget is full). Logs are
     * never written to the outbox or resent: the terminal result carries the whole output.
     */
    private void onOutput(Input.Output o, List<Effect> out) {
        if (o.now().isAfter(now)) now = o.now();
        Held h = jobs.get(o.job());
        if (h == null || h.stop == StopReason.STALE) return; // ended or not ours any more: nobody to tell
        LiveLog live = h.live;
        live.refill(now, logBudget);
        for (OutputChunk c : o.chunks()) {
            var key = new LiveLog.Key(c.iteration(), c.stream());
            if (c.isDrop()) {
                live.drop(key, c.dropped());
                continue;
            }
            if (canStream(h) && live.take(c.bytes())) {
                // The marker goes right before the stream's next text, so entries stay in stream order.
                if (live.hasDrop(key)) announceDrop(h, key, out);
                send(RunnerMessage.Log.text(h.id(), h.lease(), live.takeSeq(), c.stream(), c.iteration(), c.text()), out);
            } else {
                live.drop(key, c.bytes());
            }
        }
    }

    private boolean canStream(Held h) {
        if (link != Link.CONNECTED || h.phase != Phase.RUNNING || h.stop == StopReason.STALE) return false;
        int unacked = sentOnLink.getOrDefault(h.id(), 0) - ackedOnLink.getOrDefault(h.id(), 0);
        return unacked < logBudget.maxUnacked();
    }

    /**
     * On the tick: once the output has been quiet long enough for the rate budget to fill up
     * again, the markers of drops that no later text announced go out (one per stream).
     */
    private void announceDrops(Held h, List<Effect> out) {
        if (h.live.drops().isEmpty()) return;
        h.live.refill(now, logBudget);
        if (!h.live.isFull(logBudget)) return;
        for (var key : List.copyOf(h.live.drops().keySet())) {
            if (!canStream(h)) return;
            announceDrop(h, key, out);
        }
    }

    private void announceDrop(Held h, LiveLog.Key key, List<Effect> out) {
        long bytes = h.live.takeDrop(key);
        send(RunnerMessage.Log.dropped(h.id(), h.lease(), h.live.takeSeq(), key.stream(), key.iteration(), bytes), out);
    }

    private void onFinished(Input.Finished f, List<Effect> out) {
        Held h = jobs.remove(f.job());
        if (h == null) {
            unexpected(f, "unknown job");
            return;
        }
        ExecutionResult r = f.result();
        List<IterationResult> results = r.results();
        out.add(new Effect.DeleteInflight(h.id()));
        if (h.phase != Phase.RUNNING) {
            // It never started: no run time, no failure. Cancel is answered, anything else declined.
            if (h.stop == StopReason.CANCEL) finish(new RunnerMessage.Canceled(h.id(), h.lease(), List.of()), out);
            else if (h.stop != StopReason.STALE) {
                boolean shutdown = h.stop == StopReason.SHUTDOWN;
                String reason = shutdown ? "runner shutting down"
                        : "could not start: " + (r.detail() == null ? r.kind().name().toLowerCase() : r.detail());
                sendOrKeep(new RunnerMessage.Declined(h.id(), h.lease(), shutdown ? DeclineCode.SHUTTING_DOWN : DeclineCode.EXECUTOR_ERROR,
                        reason), out);
            }
            afterJobEnded(out);
            return;
        }
        RunnerMessage.Terminal terminal = switch (h.stop) {
            case STALE -> null;
            case CANCEL -> new RunnerMessage.Canceled(h.id(), h.lease(), results);
            case TIMEOUT -> new RunnerMessage.Failed(h.id(), h.lease(), results,
                    "timed out after " + h.job.timeout() + " s (the job's timeout); output is partial");
            case SHUTDOWN -> new RunnerMessage.Failed(h.id(), h.lease(), results,
                    "runner shut down: the job did not finish within the grace period of " + config.grace().toSeconds() + " s");
            case null -> natural(h, r);
        };
        if (terminal == null) log.info("job {}: stopped after a stale lease; nothing to report", h.id());
        else finish(terminal, out);
        afterJobEnded(out);
    }

    /** The terminal message of an execution that ended without being stopped by the runner. */
    private RunnerMessage.Terminal natural(Held h, ExecutionResult r) {
        List<IterationResult> results = r.results();
        return switch (r.kind()) {
            case EXITED -> {
                for (int i = 0; i < results.size(); i++) {
                    Integer code = results.get(i).exitCode();
                    if (code == null || code != 0) {
                        // Iterations count from 0 everywhere (reports, logs, the API).
                        yield new RunnerMessage.Failed(h.id(), h.lease(), results,
                                "iteration " + i + " exited with code " + code);
                    }
                }
                yield new RunnerMessage.Completed(h.id(), h.lease(), results);
            }
            case OUT_OF_MEMORY -> new RunnerMessage.Failed(h.id(), h.lease(), results,
                    "out of memory: the workload was killed at its memory limit" + (r.detail() == null ? "" : " (" + r.detail() + ")"));
            case ERROR -> new RunnerMessage.Failed(h.id(), h.lease(), results, "executor error: " + r.detail());
            // Stopped although nobody asked: treat as a failure, never as success.
            case STOPPED -> new RunnerMessage.Failed(h.id(), h.lease(), results, "workload stopped unexpectedly");
        };
    }

    /** Persist, then send if connected; resent on reconnect until acknowledged. */
    private void finish(RunnerMessage.Terminal result, List<Effect> out) {
        RunnerMessage.Terminal terminal = MessageBudget.fit(result, config.maxMessageBytes());
        Pending p = new Pending(terminal, 0);
        pending.put(terminal.job(), p);
        log.info("job {}: {}", terminal.job(), eventName(terminal));
        if (link == Link.CONNECTED) sendResult(p, out); // writes the outbox entry first
        else out.add(new Effect.WriteOutbox(terminal, 0));
    }

    private void sendResult(Pending p, List<Effect> out) {
        p.sends++;
        p.sentAt = now;
        // The count is persisted so that bounded retries survive an agent restart.
        out.add(new Effect.WriteOutbox(p.message, p.sends));
        send(p.message, out);
        p.ackAt = sentOnLink.get(p.message.job());
    }

    private void sendOrKeep(RunnerMessage.Declined declined, List<Effect> out) {
        if (link == Link.CONNECTED) send(declined, out);
        else unsentDeclines.add(declined);
    }

    private void afterJobEnded(List<Effect> out) {
        maybeApplyUpdate(out);
        maybeReady(out);
        maybeExit(out);
    }

    // ---- helpers ---------------------------------------------------------------------------

    private void send(RunnerMessage message, List<Effect> out) {
        JobUuid job = switch (message) {
            case RunnerMessage.JobScoped s -> s.job();
            case RunnerMessage.Heartbeat hb -> hb.job();
            case RunnerMessage.Ready r -> null;
        };
        if (job != null) sentOnLink.merge(job, 1, Integer::sum);
        out.add(new Effect.Send(message));
    }

    /** Ask for work when connected, running, not updating, with a free slot and no result waiting. */
    private void maybeReady(List<Effect> out) {
        if (link != Link.CONNECTED || readyRemaining > 0 || mode != Mode.RUNNING || shuttingDown) return;
        if (updating || pendingUpdate != null || !pending.isEmpty()) return;
        int free = config.slots() - jobs.size();
        if (free <= 0) return;
        readyRemaining = free;
        send(new RunnerMessage.Ready(config.pollTimeoutSeconds(), config.os(),
                config.arch().map(a -> a.wireName()).orElse(System.getProperty("os.arch")), config.version(), free, null, null, config.capabilities(), config.labels().isEmpty() ? null : config.labels(),
                heldImages), out);
        heldImagesUnsent = false;
    }

    /** The held images when the server has not seen them on this link yet, else null (unchanged); at most once. */
    private List<dev.baton.protocol.value.ImageDigest> imagesToReport() {
        if (!heldImagesUnsent) return null;
        heldImagesUnsent = false;
        return heldImages;
    }

    private void maybeExit(List<Effect> out) {
        if (!shuttingDown || exited || !jobs.isEmpty()) return;
        if (pending.isEmpty() && unsentDeclines.isEmpty()) {
            exit(EXIT_OK, "shut down", out);
        } else if (link != Link.CONNECTED && link != Link.CONNECTING) {
            exit(EXIT_OK, "shut down; undelivered results stay in the outbox", out);
        }
    }

    private void exit(int status, String reason, List<Effect> out) {
        exited = true;
        if (link != Link.DISCONNECTED) out.add(new Effect.Disconnect());
        link = Link.DISCONNECTED;
        out.add(new Effect.Exit(status, reason));
    }

    private static String eventName(RunnerMessage message) {
        return switch (message) {
            case RunnerMessage.Completed c -> "completed";
            case RunnerMessage.Failed f -> "failed";
            case RunnerMessage.Canceled c -> "canceled";
            default -> message.getClass().getSimpleName().toLowerCase();
        };
    }

    private void unexpected(Input input, String why) {
        log.warn("unexpected {} ({}); state kept", describe(input), why);
    }

    private static String describe(Input input) {
        return switch (input) {
            case Input.Received r -> "server message " + r.message().getClass().getSimpleName();
            default -> input.getClass().getSimpleName();
        };
    }

    // ---- read-only views for the driver and tests ------------------------------------------

    /** Jobs currently held (preparing or running). */
    public int activeJobs() {
        return jobs.size();
    }

    /** Terminal results not yet acknowledged. */
    public int pendingResults() {
        return pending.size();
    }

    public boolean isQuiet() {
        return mode != Mode.RUNNING;
    }

    public boolean hasExited() {
        return exited;
    }
}

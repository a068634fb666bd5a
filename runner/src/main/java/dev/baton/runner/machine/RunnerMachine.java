package dev.baton.runner.machine;

import dev.baton.channelclient.machine.InflightRecord;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import java.time.Duration;
import java.util.ArrayList;
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
 * <p>This class only routes each input to the phase that owns it; the shared state is
 * {@link MachineState}, and each phase is one class: {@link Connecting} (connect, handshake,
 * reconnect), {@link Claiming} ({@code ready} and job offers), {@link Preparing}, {@link Running}
 * (heartbeats, local timeout, live output), {@link Finishing} (what an ended job reports),
 * {@link Reporting} (the outbox, acks and resends), {@link Canceling} ({@code cancel},
 * {@code stale}), {@link Draining} (quiet, resume, graceful shutdown) and {@link Updating}.
 * They all log under this class's name.
 */
public final class RunnerMachine {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    /** Exit status when the operator asked the agent to stop, after a clean drain. */
    public static final int EXIT_OK = 0;
    /** Exit status when the server refused the key. */
    public static final int EXIT_REFUSED = 2;
    /** Exit status asking the supervisor to start the (updated) agent again. */
    public static final int EXIT_RESTART = 75;

    private final MachineState state;
    private final Connecting connecting;
    private final Claiming claiming;
    private final Preparing preparing;
    private final Running running;
    private final Finishing finishing;
    private final Reporting reporting;
    private final Canceling canceling;
    private final Draining draining;
    private final Updating updating;
    private final Calibrating calibrating;

    private boolean started;

    /**
     * @param recoveredResults terminal results found in the outbox, with how often each was sent
     * @param recoveredInflight attempts a previous agent held when it stopped
     */
    public RunnerMachine(
            MachineConfig config,
            RandomGenerator random,
            Map<RunnerMessage.Terminal, Integer> recoveredResults,
            List<InflightRecord> recoveredInflight) {
        this(config, random, recoveredResults, recoveredInflight, LogBudget.DEFAULT);
    }

    /** @param logBudget how much live output is streamed; see {@link LogBudget} */
    public RunnerMachine(
            MachineConfig config,
            RandomGenerator random,
            Map<RunnerMessage.Terminal, Integer> recoveredResults,
            List<InflightRecord> recoveredInflight,
            LogBudget logBudget) {
        this(config, random, recoveredResults, recoveredInflight, Map.of(), logBudget);
    }

    /**
     * @param killedLeftovers what the executor's start-up sweep found still running and killed,
     *     per job (e.g. "process group 4242"); named in what is reported for the job
     */
    public RunnerMachine(
            MachineConfig config,
            RandomGenerator random,
            Map<RunnerMessage.Terminal, Integer> recoveredResults,
            List<InflightRecord> recoveredInflight,
            Map<JobUuid, String> killedLeftovers,
            LogBudget logBudget) {
        state = new MachineState(config);
        claiming = new Claiming(state);
        draining = new Draining(state, claiming);
        updating = new Updating(state, claiming);
        reporting = new Reporting(state, claiming, draining, recoveredResults, recoveredInflight, killedLeftovers);
        canceling = new Canceling(state, reporting);
        preparing = new Preparing(state);
        running = new Running(state, claiming, logBudget);
        finishing = new Finishing(state, reporting, claiming, updating, draining);
        connecting = new Connecting(state, random, claiming, reporting, draining);
        calibrating = new Calibrating(state, claiming);
    }

    public static RunnerMachine fresh(MachineConfig config, RandomGenerator random) {
        return new RunnerMachine(config, random, Map.of(), List.of());
    }

    public static RunnerMachine fresh(MachineConfig config, RandomGenerator random, LogBudget logBudget) {
        return new RunnerMachine(config, random, Map.of(), List.of(), logBudget);
    }

    public List<Effect> handle(Input input) {
        List<Effect> out = new ArrayList<>();
        if (state.exited) {
            log.debug("ignoring {} after exit", input.getClass().getSimpleName());
            return out;
        }
        if (!started && !(input instanceof Input.Start)) {
            state.unexpected(input, "before start");
            return out;
        }
        switch (input) {
            case Input.Start s -> onStart(s, out);
            case Input.ConnectionOpened o -> connecting.onOpened(o, out);
            case Input.ConnectionClosed c -> connecting.onClosed(c, out);
            case Input.ReconnectDue r -> connecting.onReconnectDue(r, out);
            case Input.ResultWritten w -> reporting.onWritten(w);
            case Input.Received r -> onReceived(r.message(), out);
            case Input.Malformed m -> log.warn("server sent an invalid message: {}", m.reason());
            case Input.Tick t -> onTick(t, out);
            case Input.SignalReceived s -> draining.onSignal(s, out);
            case Input.PrepareProgress p -> preparing.onProgress(p, out);
            case Input.Prepared p -> preparing.onPrepared(p, out);
            case Input.PrepareDeclined d -> finishing.onPrepareDeclined(d, out);
            case Input.Started s -> preparing.onStarted(s, out);
            case Input.Output o -> running.onOutput(o, out);
            case Input.Finished f -> finishing.onFinished(f, out);
            case Input.UpdateInstalled u -> updating.onInstalled(u, out);
            case Input.Calibrated c -> calibrating.onCalibrated(c, out);
            case Input.UpdateFailed u -> updating.onFailed(u, out);
            case Input.ImagesHeld i -> claiming.onImagesHeld(i);
        }
        return out;
    }

    private void onStart(Input.Start s, List<Effect> out) {
        if (started) {
            state.unexpected(s, "already started");
            return;
        }
        started = true;
        state.now = s.now();
        reporting.recoverAtStart(out);
        connecting.connect(out);
    }

    private void onReceived(ServerMessage message, List<Effect> out) {
        if (!state.link.isConnected()) {
            state.unexpected(new Input.Received(message), "link is " + state.link.state());
            return;
        }
        connecting.onValidMessage();
        switch (message) {
            case ServerMessage.Ack a -> reporting.onAck(a, out);
            case ServerMessage.Job j -> claiming.onJob(j.job(), out);
            case ServerMessage.NoJob n -> {
                claiming.onNoJob(out);
                calibrating.maybeStart(out);
            }
            case ServerMessage.Calibrate c -> calibrating.onCalibrate(out);
            case ServerMessage.Cancel c -> canceling.onCancel(c, out);
            case ServerMessage.Stale s -> canceling.onStale(s, out);
            case ServerMessage.Drain d -> draining.onDrain(d.state(), out);
            case ServerMessage.Update u -> updating.onUpdate(u, out);
            case ServerMessage.Error e -> log.warn("server error {}: {}", e.code(), e.message());
            // logged by the driver, which knows the server and executor; the machine takes the server's message limit
            case ServerMessage.Welcome w -> {
                reporting.onServerLimit(w.maxMessageBytes());
                state.serverReadTimeout =
                        w.heartbeatTimeoutSeconds() == null ? null : Duration.ofSeconds(w.heartbeatTimeoutSeconds());
            }
            // Answered to the image pull that asked (ChannelClient hands it there, issue 41); no state here.
            case ServerMessage.PullToken p -> {}
        }
    }

    /** Once a second: keep-alives, overdue resends, quiet drop markers, timeouts, then the shutdown's deadlines. */
    private void onTick(Input.Tick t, List<Effect> out) {
        state.now = t.now();
        if (state.link.isConnected()) {
            running.heartbeats(out);
            reporting.resendOverdue(out);
        }
        running.announceDrops(out);
        running.enforceTimeouts(out);
        calibrating.maybeStart(out);
        draining.onTick(out);
    }

    // ---- read-only views for the driver and tests ------------------------------------------

    /**
     * How long the driver may wait before the next tick (issue 45, decision 0051). {@code busy}
     * (a second) whenever a tick has work: a job held, a result or decline waiting, not connected,
     * quiet or shutting down, an update waiting. At rest — connected, running, nothing held or
     * waiting — a tick only sends the bare heartbeat, which the server needs within its read
     * timeout: then a third of that timeout as its {@code welcome} said it, at most {@code rest},
     * never less than {@code busy}; {@code busy} when the welcome did not say it (a router, an
     * older server).
     */
    public Duration tickWithin(Duration busy, Duration rest) {
        boolean atRest = state.link.isConnected()
                && state.mode == MachineState.Mode.RUNNING
                && !state.shuttingDown
                && !state.updating
                && state.pendingUpdate == null
                && state.jobs.isEmpty()
                && state.pending.isEmpty()
                && state.unsentDeclines.isEmpty()
                && !calibrating.active();
        if (!atRest || state.serverReadTimeout == null) return busy;
        Duration third = state.serverReadTimeout.dividedBy(3);
        Duration within = third.compareTo(rest) < 0 ? third : rest;
        return within.compareTo(busy) > 0 ? within : busy;
    }

    /** Jobs currently held (preparing or running). */
    public int activeJobs() {
        return state.jobs.size();
    }

    /** Terminal results not yet acknowledged. */
    public int pendingResults() {
        return state.pending.size();
    }

    public boolean isQuiet() {
        return state.mode != MachineState.Mode.RUNNING;
    }

    public boolean hasExited() {
        return state.exited;
    }
}

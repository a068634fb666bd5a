package dev.baton.runner.machine;

import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state more than one phase of {@link RunnerMachine} reads or changes. What only one phase
 * needs (the reconnect counters, the outstanding {@code ready}, the shutdown deadlines) lives in
 * that phase's class instead.
 */
final class MachineState {
    // Every phase logs under the machine's name, the one operators see (docs/runner.md).
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    /** Whether the runner takes jobs (seed 002): running, quiet, or terminating after the grace period. */
    enum Mode {
        RUNNING,
        QUIET,
        TERMINATE
    }

    final MachineConfig config;
    final ServerLink link = new ServerLink();
    /** The time of the last input that carried one. */
    Instant now = Instant.EPOCH;

    Mode mode = Mode.RUNNING;
    boolean shuttingDown;
    boolean exited;
    /** A single-job runner has had its job offer (taken or declined): it asks for no other and exits once it is reported. */
    boolean singleJobTaken;
    /** An update the server asked for, waiting for the jobs to end before it is installed. */
    ServerMessage.Update pendingUpdate;
    /** An update is being installed by the driver. */
    boolean updating;
    /** The server asked for a noise calibration ({@code calibrate}): no {@code ready} until it has run. */
    boolean calibrationAsked;
    /** The driver is running the noise calibration: no job is asked for or taken meanwhile. */
    boolean calibrating;

    /** The jobs held, preparing or running, in the order they were claimed. */
    final Map<JobUuid, HeldJob> jobs = new LinkedHashMap<>();
    /** Terminal results written to the outbox and not acknowledged yet. */
    final Map<JobUuid, PendingResult> pending = new LinkedHashMap<>();
    /** Declines that could not be sent yet (decided while disconnected, e.g. after a restart). */
    final List<RunnerMessage.Declined> unsentDeclines = new ArrayList<>();

    /**
     * The largest result to send: the runner's own limit, lowered to the server's when its
     * {@code welcome} says it (and kept across connections, as the server's setting rarely changes).
     */
    int messageLimit;

    /**
     * The server's read timeout, as its {@code welcome} says it (null: not said, a router or an
     * older server); an idle runner heartbeats at a third of it (issue 45, decision 0051).
     */
    java.time.Duration serverReadTimeout;

    MachineState(MachineConfig config) {
        this.config = config;
        this.messageLimit = config.maxMessageBytes();
    }

    /** The machine is done: close the channel if open, and tell the driver to exit with {@code status}. */
    void exit(int status, String reason, List<Effect> out) {
        exited = true;
        if (!link.is(ServerLink.State.DISCONNECTED)) out.add(new Effect.Disconnect());
        link.moveTo(ServerLink.State.DISCONNECTED);
        out.add(new Effect.Exit(status, reason));
    }

    /** Input that does not fit the state is logged and changes nothing. */
    void unexpected(Input input, String why) {
        log.warn("unexpected {} ({}); state kept", describe(input), why);
    }

    private static String describe(Input input) {
        return switch (input) {
            case Input.Received r -> "server message " + r.message().getClass().getSimpleName();
            default -> input.getClass().getSimpleName();
        };
    }

    /** The protocol's name of a message, for the log. */
    static String eventName(RunnerMessage message) {
        return switch (message) {
            case RunnerMessage.Completed c -> "completed";
            case RunnerMessage.Failed f -> "failed";
            case RunnerMessage.Canceled c -> "canceled";
            default -> message.getClass().getSimpleName().toLowerCase();
        };
    }
}

package dev.baton.channelclient.machine;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.MachineFingerprint;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Everything that can happen to a runner, as data. The driver turns sockets, timers, signals and
 * executor callbacks into inputs; {@link RunnerMachine} turns inputs into {@link Effect}s.
 */
public sealed interface Input {

    /** The agent starts: recover the outbox, sweep, connect. Always the first input. */
    record Start(Instant now) implements Input {}

    /** The channel is open (upgrade succeeded). */
    record ConnectionOpened(Instant now) implements Input {}

    /**
     * The channel closed, or a connect attempt failed. {@code fatal} means retrying cannot help
     * (the server refused the key), so the agent exits instead of reconnecting. {@code replaced}
     * means the server closed it because another connection of this runner took its place (close
     * code 4001): someone else uses this runner's key, so the agent backs off instead of taking
     * the channel back at once. {@code tooBig} means the server closed it with 1009 (message too
     * big): what was sent and not acknowledged on it is resent smaller. {@code retryAfter}, when
     * not null, is the server's word on when to come back (close code 4029, too many connects:
     * "retry in N s"); the agent waits at least that long.
     */
    record ConnectionClosed(
            Instant now, String reason, boolean fatal, boolean replaced, boolean tooBig, Duration retryAfter)
            implements Input {
        public ConnectionClosed(Instant now, String reason, boolean fatal) {
            this(now, reason, fatal, false, false, null);
        }

        public ConnectionClosed(Instant now, String reason, boolean fatal, boolean replaced) {
            this(now, reason, fatal, replaced, false, null);
        }

        public ConnectionClosed(Instant now, String reason, boolean fatal, boolean replaced, boolean tooBig) {
            this(now, reason, fatal, replaced, tooBig, null);
        }
    }

    /** The backoff delay of a {@link Effect.ScheduleReconnect} has passed. */
    record ReconnectDue(Instant now) implements Input {}

    /**
     * The driver finished writing a terminal result to the socket. A large result takes seconds to
     * write, so the wait for its ack starts here, not when the machine decided to send it.
     */
    record ResultWritten(dev.baton.protocol.id.JobUuid job, Instant now) implements Input {}

    /** A valid message from the server. */
    record Received(ServerMessage message) implements Input {}

    /** A frame that was not a valid server message (bad JSON, unknown event, too large). */
    record Malformed(String reason) implements Input {}

    /** Once a second, from the heartbeat thread: heartbeats, keep-alives, deadlines. */
    record Tick(Instant now) implements Input {}

    /** An operating-system signal, already mapped to what it means (seed 002). */
    record SignalReceived(Signal signal, Instant now) implements Input {}

    /**
     * The images the executor holds, most recent first (image affinity): sent with the next
     * {@code ready}, and with the next heartbeat when they changed since the last report.
     */
    record ImagesHeld(List<dev.baton.protocol.value.ImageDigest> images) implements Input {
        public ImagesHeld {
            images = List.copyOf(images);
        }
    }

    /** The executor reports progress while pulling or unpacking (sent as a preparing keep-alive). */
    record PrepareProgress(JobUuid job, String message) implements Input {}

    /**
     * The executor has everything in place; the workload can start. {@code fingerprint} is the
     * machine's state read just now (null when none was taken), sent with {@code running}.
     */
    record Prepared(JobUuid job, MachineFingerprint fingerprint) implements Input {
        public Prepared(JobUuid job) {
            this(job, null);
        }
    }

    /**
     * The executor cannot run this job here (architecture, pull denied, disk full, a noisy machine
     * for a spec that requires a clean one, …). Final. {@code fingerprint} goes with the decline when
     * it is why.
     */
    record PrepareDeclined(JobUuid job, DeclineCode code, String reason, MachineFingerprint fingerprint)
            implements Input {
        public PrepareDeclined(JobUuid job, String reason) {
            this(job, DeclineCode.OTHER, reason, null);
        }

        public PrepareDeclined(JobUuid job, DeclineCode code, String reason) {
            this(job, code, reason, null);
        }
    }

    /** The workload process really started: the job's clock starts now. */
    record Started(JobUuid job, Instant now) implements Input {}

    /**
     * Output the workload printed since the last one (from the capture buffer, every flush
     * interval or when a chunk is full): streamed as {@code log} messages within the budget.
     */
    record Output(JobUuid job, List<OutputChunk> chunks, Instant now) implements Input {}

    /** The execution ended, by itself or because it was stopped. Final. */
    record Finished(JobUuid job, ExecutionResult result) implements Input {}

    /** A self-update was downloaded, verified and installed; the agent should restart. */
    record UpdateInstalled(String version) implements Input {}

    /** A self-update could not be installed (download, checksum, replace); the old version keeps running. */
    record UpdateFailed(String version, String reason) implements Input {}

    /**
     * The noise calibration the server asked for ({@code calibrate}, decision 0062) ended: its
     * message, or null when it could not be measured (logged by the driver).
     */
    record Calibrated(dev.baton.protocol.message.RunnerMessage.Calibration calibration) implements Input {}

    /** What a signal means to the runner. */
    enum Signal {
        /** SIGTERM / SIGINT: quiet, finish within the grace period, cancel the rest, exit. */
        TERMINATE,
        /** SIGTSTP: take no new jobs. */
        QUIET,
        /** SIGCONT: take jobs again. */
        RESUME
    }
}

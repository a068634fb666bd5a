package dev.baton.runner.machine;

import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.RunnerMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection to the server: connect, what is sent first on every new connection (results,
 * declines, the attempts still held, then {@code ready}), and reconnecting after a close with
 * exponential backoff and jitter — on its own, growing count when another connection of this
 * runner replaced ours (close 4001), and not at all when the server refused the key.
 */
final class Connecting {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    private final MachineState s;
    private final RandomGenerator random;
    private final Claiming claiming;
    private final Reporting reporting;
    private final Draining draining;
    /** Failed attempts since the last valid server message; drives the backoff. */
    private int reconnectAttempt;
    /** Replacements (close 4001) in a row; not reset by valid messages, only by a connection that stayed up. */
    private int replacements;
    /** When the current connection opened, or null. */
    private Instant openedAt;

    Connecting(MachineState state, RandomGenerator random, Claiming claiming, Reporting reporting, Draining draining) {
        this.s = state;
        this.random = random;
        this.claiming = claiming;
        this.reporting = reporting;
        this.draining = draining;
    }

    /** The first connect, at start. */
    void connect(List<Effect> out) {
        s.link.moveTo(ServerLink.State.CONNECTING);
        out.add(new Effect.Connect());
    }

    void onOpened(Input.ConnectionOpened o, List<Effect> out) {
        s.now = o.now();
        if (!s.link.is(ServerLink.State.CONNECTING)) {
            s.unexpected(o, "link is " + s.link.state());
            return;
        }
        s.link.moveTo(ServerLink.State.CONNECTED);
        openedAt = s.now;
        s.link.forgetCounts();
        claiming.linkOpened();
        // Results first (seed 000: resent on the next connection before going idle).
        reporting.resendAll(out);
        // Tell the server which attempts are still alive here (running again is idempotent).
        for (HeldJob h : s.jobs.values()) {
            if (h.stop == HeldJob.StopReason.STALE) continue;
            if (h.phase == HeldJob.Phase.RUNNING)
                s.link.send(new RunnerMessage.Running(h.id(), h.lease(), h.fingerprint), out);
            else s.link.send(new RunnerMessage.Preparing(h.id(), h.lease(), h.progress), out);
        }
        claiming.maybeReady(out);
        draining.maybeExit(out);
    }

    /** A valid message proves the connection works: the next failure backs off from the start. */
    void onValidMessage() {
        reconnectAttempt = 0;
    }

    void onClosed(Input.ConnectionClosed c, List<Effect> out) {
        s.now = c.now();
        if (s.link.is(ServerLink.State.DISCONNECTED)) {
            s.unexpected(c, "already disconnected");
            return;
        }
        boolean wasConnected = s.link.isConnected();
        Instant opened = openedAt;
        openedAt = null;
        s.link.moveTo(ServerLink.State.DISCONNECTED);
        claiming.linkLost();
        if (c.tooBig()) reporting.refusedAsTooBig(out); // before linkLost forgets what was sent on this connection
        reporting.linkLost();
        if (c.fatal()) {
            log.error("the server refused this runner: {}", c.reason());
            s.exit(RunnerMachine.EXIT_REFUSED, "server refused the runner: " + c.reason(), out);
            return;
        }
        if (s.shuttingDown && s.jobs.isEmpty()) {
            // Unacknowledged results stay in the outbox for the next start.
            s.exit(RunnerMachine.EXIT_OK, "shut down", out);
            return;
        }
        if (opened != null && !s.now.isBefore(opened.plus(s.config.backoffMax()))) replacements = 0;
        if (c.replaced()) {
            // Another connection with this runner's key took the channel: most likely a second agent.
            // Taking it back at once would make the two replace each other forever, so back off,
            // more after every replacement; a connection that stayed up long enough starts over.
            replacements++;
            Duration delay = backoff(replacements);
            log.warn(
                    "channel replaced by another connection of this runner ({}; {} time(s) in a row): is another agent "
                            + "running with this runner's key? Reconnecting in {} ms",
                    c.reason(),
                    replacements,
                    delay.toMillis());
            out.add(new Effect.ScheduleReconnect(delay));
            return;
        }
        Duration delay = backoff(reconnectAttempt++);
        // Too many connects (4029): coming back before the server's bucket refills is refused again.
        if (c.retryAfter() != null && c.retryAfter().compareTo(delay) > 0) delay = c.retryAfter();
        log.info(
                "channel {}: {}; reconnecting in {} ms",
                wasConnected ? "closed" : "not opened",
                c.reason(),
                delay.toMillis());
        out.add(new Effect.ScheduleReconnect(delay));
    }

    void onReconnectDue(Input.ReconnectDue r, List<Effect> out) {
        s.now = r.now();
        if (!s.link.is(ServerLink.State.DISCONNECTED)) {
            s.unexpected(r, "link is " + s.link.state());
            return;
        }
        s.link.moveTo(ServerLink.State.CONNECTING);
        out.add(new Effect.Connect());
    }

    /** Exponential backoff with jitter: a random delay in [d/2, d], d = base·2^attempt capped at max. */
    Duration backoff(int attempt) {
        long base = s.config.backoffBase().toMillis();
        long max = s.config.backoffMax().toMillis();
        long d = attempt >= 30 ? max : Math.min(max, base << attempt);
        long half = d / 2;
        return Duration.ofMillis(half + (half == 0 ? 0 : random.nextLong(half + 1)));
    }
}

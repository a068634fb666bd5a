package dev.baton.runner.machine;

import dev.baton.channelclient.machine.InflightRecord;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.FailureCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reporting: delivering terminal results ({@code completed}, {@code failed}, {@code canceled})
 * and declines until the server has them. A result is written to the outbox before it is sent,
 * resent on every new connection and after {@link #RESEND_AFTER} without an ack, and deleted
 * from the outbox by the ack that matches its own position on the connection (see
 * {@link ServerLink}). Also what a restarted agent reports for the attempts its predecessor held.
 */
final class Reporting {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    /**
     * A result unacknowledged this long on a live connection is sent again (resending a terminal
     * message is always safe, seed 000). This also recovers if the server answered one of the job's
     * earlier messages with something other than an ack, which would shift the ack count.
     */
    static final Duration RESEND_AFTER = Duration.ofSeconds(10);

    private final MachineState s;
    private final Claiming claiming;
    private final Draining draining;
    private final List<RunnerMessage.Terminal> recoveredResults;
    private final List<InflightRecord> recoveredInflight;
    private final Map<JobUuid, String> killedLeftovers;

    /**
     * @param recoveredResults terminal results found in the outbox, with how often each was sent
     * @param recoveredInflight attempts a previous agent held when it stopped
     * @param killedLeftovers what the executor's start-up sweep killed, per job
     */
    Reporting(
            MachineState state,
            Claiming claiming,
            Draining draining,
            Map<RunnerMessage.Terminal, Integer> recoveredResults,
            List<InflightRecord> recoveredInflight,
            Map<JobUuid, String> killedLeftovers) {
        this.s = state;
        this.claiming = claiming;
        this.draining = draining;
        this.killedLeftovers = Map.copyOf(killedLeftovers);
        this.recoveredResults = List.copyOf(recoveredResults.keySet());
        recoveredResults.forEach((message, sends) -> s.pending.put(message.job(), new PendingResult(message, sends)));
        this.recoveredInflight = List.copyOf(recoveredInflight);
    }

    /** At start: what to report for each attempt the previous agent held, before connecting. */
    void recoverAtStart(List<Effect> out) {
        for (InflightRecord record : recoveredInflight) {
            String killed = killedLeftovers.get(record.job());
            String leftovers = killed == null ? "" : "; killed what it left running: " + killed;
            if (s.pending.containsKey(record.job())) {
                // The result was written before the crash: it is the better report.
                out.add(new Effect.DeleteInflight(record.job()));
            } else if (record.hasStarted()) {
                // Lost: whatever it was doing is gone (and was killed at this start, if it still ran).
                var failed = RunnerMessage.Failed.because(
                        record.job(),
                        record.lease(),
                        List.of(),
                        "runner restarted during execution" + leftovers,
                        FailureCode.RUNNER_RESTARTED);
                s.pending.put(record.job(), new PendingResult(failed, 0));
                out.add(new Effect.WriteOutbox(failed, 0));
                out.add(new Effect.DeleteInflight(record.job()));
            } else {
                // Never started as far as the server knows: nothing to fail, the job goes back to the queue.
                s.unsentDeclines.add(new RunnerMessage.Declined(
                        record.job(),
                        record.lease(),
                        DeclineCode.OTHER,
                        "runner restarted while preparing" + leftovers));
                out.add(new Effect.DeleteInflight(record.job()));
            }
        }
        for (var leftover : killedLeftovers.entrySet()) {
            boolean known = s.pending.containsKey(leftover.getKey())
                    || recoveredInflight.stream().anyMatch(r -> r.job().equals(leftover.getKey()));
            if (!known)
                log.warn(
                        "job {}: killed {} left running by a previous agent; no attempt of it is recorded here",
                        leftover.getKey(),
                        leftover.getValue());
        }
        if (!recoveredResults.isEmpty())
            log.info("{} result(s) from a previous run wait to be delivered", recoveredResults.size());
    }

    /** On a new connection, first (seed 000): every waiting result and decline, before anything else. */
    void resendAll(List<Effect> out) {
        for (var it = s.pending.values().iterator(); it.hasNext(); ) {
            PendingResult p = it.next();
            if (p.sends >= s.config.maxSends()) {
                log.error(
                        "dropping the {} result of job {}: sent {} times without an acknowledgement",
                        MachineState.eventName(p.message),
                        p.message.job(),
                        p.sends);
                it.remove();
                out.add(new Effect.DeleteOutbox(p.message.job()));
                continue;
            }
            sendResult(p, out);
        }
        for (RunnerMessage.Declined d : s.unsentDeclines) s.link.send(d, out);
        s.unsentDeclines.clear();
    }

    /** The connection is gone: no result is sent on the next one until it is resent there. */
    void linkLost() {
        for (PendingResult p : s.pending.values()) p.ackAt = 0;
    }

    void onAck(ServerMessage.Ack ack, List<Effect> out) {
        if (ack.job() == null) return; // ack of ready or a bare heartbeat: liveness only
        JobUuid job = ack.job();
        int acked = s.link.countAck(job);
        if (acked == 0) {
            s.unexpected(new Input.Received(ack), "nothing unacknowledged for that job");
            return;
        }
        PendingResult p = s.pending.get(job);
        if (p != null && p.ackAt > 0 && acked >= p.ackAt) {
            s.pending.remove(job);
            out.add(new Effect.DeleteOutbox(job));
            log.info("job {}: {} acknowledged", job, MachineState.eventName(p.message));
            claiming.maybeReady(out);
            draining.maybeExit(out);
        }
    }

    /** A {@code stale} for a result still waiting: it will never be accepted, so stop sending it. Returns whether it was one. */
    boolean onStale(ServerMessage.Stale stale, List<Effect> out) {
        PendingResult p = s.pending.get(stale.job());
        if (p == null || !p.message.lease().matches(stale.lease())) return false;
        log.warn(
                "job {}: the server calls the lease stale ({}); not resending its result", stale.job(), stale.reason());
        s.pending.remove(stale.job());
        out.add(new Effect.DeleteOutbox(stale.job()));
        claiming.maybeReady(out);
        draining.maybeExit(out);
        return true;
    }

    /**
     * The driver has written a result: the wait for its ack starts now, and is longer by as long as
     * the write took, since a server reads and stores a large result for about as long again.
     */
    void onWritten(Input.ResultWritten w) {
        s.now = w.now();
        PendingResult p = s.pending.get(w.job());
        if (p == null || p.ackAt == 0 || p.sentAt == null) return; // acknowledged already, or its connection is gone
        Duration writing = Duration.between(p.sentAt, w.now());
        p.patience = RESEND_AFTER.plus(writing.isNegative() ? Duration.ZERO : writing);
        p.sentAt = w.now();
    }

    /** On the tick, while connected: results sent longer than their patience ago without an ack go again. */
    void resendOverdue(List<Effect> out) {
        for (var it = s.pending.values().iterator(); it.hasNext(); ) {
            PendingResult p = it.next();
            if (p.ackAt == 0 || p.sentAt == null || s.now.isBefore(p.sentAt.plus(p.patience))) continue;
            if (p.sends >= s.config.maxSends()) {
                log.error(
                        "dropping the {} result of job {}: sent {} times without an acknowledgement",
                        MachineState.eventName(p.message),
                        p.message.job(),
                        p.sends);
                it.remove();
                out.add(new Effect.DeleteOutbox(p.message.job()));
                continue;
            }
            log.warn(
                    "job {}: no acknowledgement for {} after {} s; sending it again",
                    p.message.job(),
                    MachineState.eventName(p.message),
                    p.patience.toSeconds());
            // Whatever earlier message went unanswered will not be answered now: the next ack is the result's.
            s.link.giveUpOnEarlierAcks(p.message.job());
            sendResult(p, out);
        }
        if (s.pending.isEmpty()) {
            claiming.maybeReady(out);
            draining.maybeExit(out);
        }
    }

    /** Persist, then send if connected; resent on reconnect until acknowledged. */
    void finish(RunnerMessage.Terminal result, List<Effect> out) {
        RunnerMessage.Terminal terminal = MessageBudget.fit(result, s.messageLimit);
        if (terminal != result)
            log.warn(
                    "job {}: its {} was cut to fit the message limit of {} bytes",
                    result.job(),
                    MachineState.eventName(result),
                    s.messageLimit);
        PendingResult p = new PendingResult(terminal, 0);
        s.pending.put(terminal.job(), p);
        log.info("job {}: {}", terminal.job(), MachineState.eventName(terminal));
        if (s.link.isConnected()) sendResult(p, out); // writes the outbox entry first
        else out.add(new Effect.WriteOutbox(terminal, 0));
    }

    /**
     * The server's {@code welcome} said how large a message it takes (null: a server or router that
     * does not say). Results finished from now on are cut to fit it, not only to the runner's own limit.
     */
    void onServerLimit(Long serverLimit) {
        if (serverLimit == null || serverLimit <= 0) return;
        int limit = (int) Math.min(s.config.maxMessageBytes(), serverLimit);
        if (limit != s.messageLimit) {
            if (limit < s.config.maxMessageBytes())
                log.info("the server takes messages of at most {} bytes; results are cut to fit", limit);
            s.messageLimit = limit;
        }
    }

    /**
     * The server closed the connection with 1009: a message sent on it was over its limit, and only
     * a result can be that large. Each result sent on that connection and not acknowledged is cut to
     * half its size (the server's limit is unknown here) and resent on the next connection; a refused
     * send does not count against {@link MachineConfig#maxSends()} while the result can still shrink,
     * so a result is never dropped for being too big: at worst it becomes a {@code failed} that says so.
     */
    void refusedAsTooBig(List<Effect> out) {
        for (PendingResult p : s.pending.values()) {
            if (p.ackAt == 0) continue; // not sent on the connection that was refused
            int size = p.bytes();
            RunnerMessage.Terminal smaller = MessageBudget.fit(p.message, size / 2);
            int smallerSize = MessageBudget.size(smaller);
            if (smallerSize >= size) {
                log.error(
                        "job {}: the server refused its {} of {} bytes as too big, and it cannot be cut further",
                        p.message.job(),
                        MachineState.eventName(p.message),
                        size);
                continue;
            }
            log.warn(
                    "job {}: the server refused its {} of {} bytes as too big (close 1009); it goes again cut to {} bytes",
                    p.message.job(),
                    MachineState.eventName(p.message),
                    size,
                    smallerSize);
            s.messageLimit = Math.min(s.messageLimit, smallerSize);
            p.replace(smaller);
            p.sends = Math.max(0, p.sends - 1);
            out.add(new Effect.WriteOutbox(smaller, p.sends));
        }
    }

    /**
     * A result decided, or refused, under a larger limit than the one now known (a welcome with a
     * lower {@code max_message_bytes} came since) is cut before it goes again: sending it as it is
     * would only earn another 1009, and the close frame that says so does not always reach us
     * before the broken connection does.
     */
    private void fitToLimit(PendingResult p) {
        int size = p.bytes();
        if (size <= s.messageLimit) return;
        p.replace(MessageBudget.fit(p.message, s.messageLimit));
        log.warn(
                "job {}: its {} of {} bytes is over the server's limit of {} bytes; it goes cut to {} bytes",
                p.message.job(),
                MachineState.eventName(p.message),
                size,
                s.messageLimit,
                p.bytes());
    }

    /** A decline goes out now if connected, else with the next connection (it is not persisted). */
    void sendOrKeep(RunnerMessage.Declined declined, List<Effect> out) {
        if (s.link.isConnected()) s.link.send(declined, out);
        else s.unsentDeclines.add(declined);
    }

    private void sendResult(PendingResult p, List<Effect> out) {
        fitToLimit(p);
        p.sends++;
        p.sentAt = s.now;
        p.patience = RESEND_AFTER;
        // The count is persisted so that bounded retries survive an agent restart.
        out.add(new Effect.WriteOutbox(p.message, p.sends));
        s.link.send(p.message, out);
        p.ackAt = s.link.sentFor(p.message.job());
    }
}

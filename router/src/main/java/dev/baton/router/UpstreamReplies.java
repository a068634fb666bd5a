package dev.baton.router;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Which message sent upstream the server is answering now, on the current upstream connection.
 *
 * <p>The server answers every message in the order it came, but its answers name only the job
 * ({@code ack}) or nothing ({@code error}), a {@code cancel} may take the place of an {@code ack},
 * and a pushed {@code cancel} or {@code stale} looks like an answer. So the router follows every
 * message about a job with a bare {@code heartbeat}, which the server always answers with exactly
 * one job-less {@code ack} and nothing else does: each job-less ack closes one message. Whatever
 * the server says about a job between the close of the message before and the close of this
 * one answers this one (docs/decisions, "router-answers"); a message is done with when it closes,
 * not after so many acks.
 */
final class UpstreamReplies {
    /** A message about a job sent upstream: who waits for its answer (null for the router's own). */
    static final class Sent {
        final JobUuid job;
        final LeaseId lease;
        final boolean terminal;
        final Downstream from;
        final Answers answers;
        final Answers.Slot slot;
        /**
         * Whether the router takes the job on when the server acknowledges this message: a started
         * job's message about an attempt the router does not hold (a runner carrying on after a
         * router restart). Only the server knows whether the attempt is still alive.
         */
        final boolean adoptIfAcknowledged;
        /** What the server said about the job since the message was sent, in order, until it closed. */
        private final List<ServerMessage> said = new ArrayList<>(1);

        Sent(
                JobUuid job,
                LeaseId lease,
                boolean terminal,
                Downstream from,
                Answers answers,
                Answers.Slot slot,
                boolean adoptIfAcknowledged) {
            this.job = job;
            this.lease = lease;
            this.terminal = terminal;
            this.from = from;
            this.answers = answers;
            this.slot = slot;
            this.adoptIfAcknowledged = adoptIfAcknowledged;
        }

        static Sent own(JobUuid job, LeaseId lease, boolean terminal) {
            return new Sent(job, lease, terminal, null, null, null, false);
        }

        boolean forRunner() {
            return slot != null;
        }

        void hear(ServerMessage message) {
            said.add(message);
        }

        /** The server acknowledged the message and said nothing that ends the attempt (no cancel, stale or error). */
        boolean acknowledged() {
            return said.stream().anyMatch(m -> m instanceof ServerMessage.Ack)
                    && said.stream().allMatch(m -> m instanceof ServerMessage.Ack);
        }

        /**
         * The message is closed: its runner gets all the server said, as its one answer. Not before,
         * since a cancel or stale the server pushed while the message was on its way looks exactly
         * like an answer, and the answer itself may still follow it.
         */
        void close() {
            if (forRunner()) answers.give(slot, List.copyOf(said));
        }
    }

    private static final RunnerMessage BARE = new RunnerMessage.Heartbeat(null, null);
    /** One entry per bare heartbeat not yet answered: the message it closes, or {@link #NOTHING} for a liveness heartbeat. */
    private final Deque<Sent> closing = new ArrayDeque<>();

    private static final Sent NOTHING = Sent.own(null, null, false);
    private final Upstream upstream;

    UpstreamReplies(Upstream upstream) {
        this.upstream = upstream;
    }

    /** Sends {@code message} about {@code sent.job} and the bare heartbeat that closes it. */
    void send(RunnerMessage message, Sent sent) {
        upstream.send(message);
        upstream.send(BARE);
        closing.add(sent);
    }

    /** The router's own liveness: a bare heartbeat that closes nothing. */
    void heartbeat() {
        upstream.send(BARE);
        closing.add(NOTHING);
    }

    /** The message the server answers now, if it is about {@code job}. */
    Sent answering(JobUuid job) {
        Sent first = closing.peek();
        return first != null && first != NOTHING && first.job.equals(job) ? first : null;
    }

    /** The message the server answers now, about any job. */
    Sent answering() {
        Sent first = closing.peek();
        return first == NOTHING ? null : first;
    }

    /**
     * An ack from the server. A job's ack is heard by the message about the job being answered
     * now; a job-less ack closes a message (its runner gets what the server said), which is
     * returned (null if it closed nothing).
     */
    Sent acked(ServerMessage.Ack ack) {
        if (ack.job() == null) {
            Sent first = closing.poll();
            if (first == null || first == NOTHING) return null;
            first.close();
            return first;
        }
        Sent s = answering(ack.job());
        if (s != null) s.hear(ack);
        return null;
    }

    /**
     * A cancel or stale about {@code job} under {@code lease}: if the server is answering a runner's
     * message about that attempt now, the runner gets it with the answer when the message closes,
     * and its name is returned, so that it needs no second copy as a push; otherwise null.
     */
    String relay(JobUuid job, LeaseId lease, ServerMessage message) {
        Sent s = answering(job);
        if (s == null || !s.lease.equals(lease)) return null;
        s.hear(message);
        return s.forRunner() ? s.from.name : null;
    }

    /** An error (it names no job) answers the message being answered now; false if that is the router's own. */
    boolean relayError(ServerMessage.Error error) {
        Sent s = answering();
        if (s == null) return false;
        s.hear(error);
        return s.forRunner();
    }

    /**
     * The connection ended: the router answers what the server did not ({@code ack}: a result is in
     * the router's outbox, and the router keeps its jobs alive itself until it is back); what the
     * server had said about a message already is its answer.
     */
    void dropped() {
        for (Sent s : closing) {
            if (s == NOTHING || !s.forRunner()) continue;
            if (s.said.isEmpty()) s.hear(new ServerMessage.Ack(s.job));
            s.close();
        }
        closing.clear();
    }
}

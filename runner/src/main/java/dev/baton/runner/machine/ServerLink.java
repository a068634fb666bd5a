package dev.baton.runner.machine;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.RunnerMessage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The channel to the server as the machine sees it: whether it is up, and per job how many
 * messages were sent and acknowledged on the current connection. Acks carry only a job id and
 * the server acknowledges every message in order, so these counts are how a terminal result
 * knows which ack is its own. The counts start over with every connection.
 */
final class ServerLink {
    enum State {
        DISCONNECTED,
        CONNECTING,
        CONNECTED
    }

    private State state = State.DISCONNECTED;
    private final Map<JobUuid, Integer> sent = new LinkedHashMap<>();
    private final Map<JobUuid, Integer> acked = new LinkedHashMap<>();

    State state() {
        return state;
    }

    boolean is(State s) {
        return state == s;
    }

    boolean isConnected() {
        return state == State.CONNECTED;
    }

    void moveTo(State s) {
        state = s;
    }

    /** A new connection: nothing sent or acknowledged on it yet. */
    void forgetCounts() {
        sent.clear();
        acked.clear();
    }

    /** Emits the message and counts it for its job, if it has one. */
    void send(RunnerMessage message, List<Effect> out) {
        JobUuid job = switch (message) {
            case RunnerMessage.JobScoped s -> s.job();
            case RunnerMessage.Heartbeat hb -> hb.job();
            case RunnerMessage.Ready r -> null;
            // Answered with pull_token, never ack: not counted (pulls send it past the machine anyway).
            case RunnerMessage.PullToken p -> null;
            // Answered with nothing: stored on the runner, not on a job.
            case RunnerMessage.Calibration c -> null;
        };
        if (job != null) sent.merge(job, 1, Integer::sum);
        out.add(new Effect.Send(message));
    }

    /** How many of the job's messages were sent on this connection. */
    int sentFor(JobUuid job) {
        return sent.getOrDefault(job, 0);
    }

    /** The job's messages sent on this connection and not acknowledged yet. */
    int unacknowledged(JobUuid job) {
        return sent.getOrDefault(job, 0) - acked.getOrDefault(job, 0);
    }

    /** Counts an ack for the job: how many of its messages are acknowledged now, or 0 if none was waiting. */
    int countAck(JobUuid job) {
        int acknowledged = acked.getOrDefault(job, 0);
        if (acknowledged >= sent.getOrDefault(job, 0)) return 0;
        acked.put(job, ++acknowledged);
        return acknowledged;
    }

    /** Treats every message of the job sent so far as answered: the next ack is for what is sent next. */
    void giveUpOnEarlierAcks(JobUuid job) {
        acked.put(job, sent.getOrDefault(job, 0));
    }
}

package dev.baton.runner.machine;

import dev.baton.protocol.message.RunnerMessage;
import java.time.Instant;

/** A terminal result waiting for its ack; its outbox entry is deleted when the ack comes. */
final class PendingResult {
    /** What is sent: cut smaller when the server's limit turns out lower than it (see {@link #replace}). */
    RunnerMessage.Terminal message;
    /** Its encoded size, once measured (-1: not yet); results can be tens of MiB, so it is measured once. */
    private int bytes = -1;
    /** How often it was sent, across agent restarts (persisted with the outbox entry). */
    int sends;
    /** Position among this connection's messages for the job whose ack acknowledges it; 0 = not sent yet. */
    int ackAt;
    /** When it was last sent; an ack that does not come within {@link Reporting#RESEND_AFTER} triggers a resend. */
    Instant sentAt;
    /** How long after {@link #sentAt} the ack may take before the result is resent. */
    java.time.Duration patience = Reporting.RESEND_AFTER;

    PendingResult(RunnerMessage.Terminal message, int sends) {
        this.message = message;
        this.sends = sends;
    }

    int bytes() {
        if (bytes < 0) bytes = MessageBudget.size(message);
        return bytes;
    }

    /** The result is now {@code smaller} (cut to a limit); where it stands in its delivery is kept. */
    void replace(RunnerMessage.Terminal smaller) {
        message = smaller;
        bytes = -1;
    }
}

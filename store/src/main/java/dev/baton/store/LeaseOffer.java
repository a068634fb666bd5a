package dev.baton.store;

import dev.baton.protocol.id.LeaseId;
import java.time.Instant;

/**
 * One lease offered on the broker (transport A, docs/protocol.md): the outbox row and, once a
 * runner acknowledged it, the lease's binding to that runner and its expiry.
 *
 * @param subject   the work-queue subject the offer is published on
 * @param payload   the {@code LeaseGranted} message as published (JSON)
 * @param published when it reached the broker, null while it waits in the outbox
 * @param runnerId  the runner whose {@code AckLease} bound it, null before
 * @param expires   a bound lease's end unless a heartbeat renews it, null before
 */
public record LeaseOffer(
        LeaseId lease,
        dev.baton.protocol.id.JobUuid job,
        long jobId,
        String subject,
        String payload,
        State state,
        Instant created,
        Instant acceptDeadline,
        Instant published,
        Long runnerId,
        Instant expires,
        String endReason) {

    /** Stored as {@link #code}. */
    public enum State {
        OFFERED(0),
        BOUND(1),
        REVOKED(2),
        ENDED(3);

        private final int code;

        State(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        static State of(int code) {
            for (State s : values()) if (s.code == code) return s;
            throw new IllegalArgumentException("unknown lease offer state " + code);
        }
    }
}

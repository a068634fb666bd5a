package dev.baton.store;

import java.time.Instant;
import java.util.Objects;

/**
 * One Open Job Spec job as the store keeps it: the columns it filters and orders by, and the
 * whole job as the JSON {@code document} the OJS binding serves. {@code version} is what a
 * change must expect (compare-and-set); {@code seq} orders jobs of equal priority by enqueue.
 *
 * @param runAt    when a scheduled or retryable job becomes available, else null
 * @param deadline the visibility (lease) deadline of an active job, else null
 */
public record OjsRow(
        long seq,
        String id,
        String queue,
        String state,
        int priority,
        Instant runAt,
        Instant deadline,
        String workerId,
        long version,
        String document) {
    public OjsRow {
        Objects.requireNonNull(id);
        Objects.requireNonNull(queue);
        Objects.requireNonNull(state);
        Objects.requireNonNull(document);
    }

    /** A row not yet inserted. */
    public static OjsRow fresh(String id, String queue, String state, int priority, Instant runAt, String document) {
        return new OjsRow(0, id, queue, state, priority, runAt, null, null, 0, document);
    }
}

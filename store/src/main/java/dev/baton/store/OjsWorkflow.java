package dev.baton.store;

import java.util.Objects;

/**
 * An OJS workflow (a chain, group or batch) as the store keeps it: its state, and the rest (steps,
 * the ids of the jobs made for them, callbacks, counters) as the JSON {@code document}.
 * {@code version} is what an advance must expect (compare-and-set).
 */
public record OjsWorkflow(String id, String state, long version, String document) {
    public OjsWorkflow {
        Objects.requireNonNull(id);
        Objects.requireNonNull(state);
        Objects.requireNonNull(document);
    }
}

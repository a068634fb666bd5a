package dev.baton.store;

import java.time.Duration;
import java.time.Instant;

/**
 * An OJS worker as its registration and last beat described it: its state ({@code running},
 * {@code draining}, …), the beat as JSON, the state an operator directed ({@code quiet},
 * {@code terminate}, or null) and, for a registered worker, its heartbeat timeout (null for a
 * worker that only ever beat, which the sweep never terminates).
 */
public record OjsWorker(
        String id, String state, Instant lastBeat, String document, String directive, Duration heartbeatTimeout) {
    /** A worker known from its beats only. */
    public OjsWorker(String id, String state, Instant lastBeat, String document) {
        this(id, state, lastBeat, document, null, null);
    }

    public boolean registered() {
        return heartbeatTimeout != null;
    }

    public OjsWorker withState(String next, String nextDocument) {
        return new OjsWorker(id, next, lastBeat, nextDocument, directive, heartbeatTimeout);
    }
}

package dev.baton.chaos;

import java.util.Locale;

/**
 * How the run's runners reach their jobs (docs/protocol.md): the runner channel (WebSocket),
 * leases from a NATS queue (the NATS transport, with a nats-server the run starts), or both at once on
 * the same spec, where the two transports' claims race for every job and the database decides.
 */
enum Transport {
    WEBSOCKET,
    NATS,
    /** Runners with an even index on the NATS transport, the others on the runner channel. */
    MIXED;

    /** Whether the run needs a broker (and its nodes offer the spec on it). */
    boolean broker() {
        return this != WEBSOCKET;
    }

    /** Whether runner number {@code index} runs {@code --transport nats}. */
    boolean natsRunner(int index) {
        return this == NATS || (this == MIXED && index % 2 == 0);
    }

    static Transport parse(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "websocket" -> WEBSOCKET;
            case "nats" -> NATS;
            case "mixed" -> MIXED;
            default ->
                throw new IllegalArgumentException("--transport must be websocket, nats or mixed, got '" + name + "'");
        };
    }
}

package dev.baton.store;

import java.time.Instant;

/**
 * A server node sharing the database: when it started, last heartbeat, when it stopped (or was
 * found dead), and where the other nodes reach it ({@code advertise_url}; null until it listens).
 */
public record Node(
        String id,
        Instant started,
        Instant lastHeartbeat,
        Instant stopped,
        int runners,
        int inFlight,
        String advertiseUrl) {}

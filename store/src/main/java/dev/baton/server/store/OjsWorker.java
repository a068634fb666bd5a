package dev.baton.server.store;

import java.time.Instant;

/** An OJS worker as its last beat described it: its state ({@code running}, {@code draining}, …) and the beat as JSON. */
public record OjsWorker(String id, String state, Instant lastBeat, String document) {}

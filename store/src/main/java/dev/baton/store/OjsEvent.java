package dev.baton.store;

import java.time.Instant;

/** Something that happened to an OJS job ({@code GET /ojs/v1/events}); {@code data} is JSON. */
public record OjsEvent(long seq, String type, String queue, String jobId, String data, Instant created) {}

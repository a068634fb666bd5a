package dev.baton.store;

import java.time.Instant;

/** A project's threshold (docs/alerts.md); {@code deleted} is set once it was deleted (kept for the boundaries and alerts it made). */
public record Threshold(
        long id, String uuid, long projectId, ThresholdRule rule, Instant created, Instant modified, Instant deleted) {}

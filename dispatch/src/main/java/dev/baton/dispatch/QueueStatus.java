package dev.baton.dispatch;

import java.time.Instant;

/**
 * A pending job's place in the queue: why it waits, its 1-based position among the jobs that
 * compete for the same runners (dispatch order), and an estimate of when it starts (null when
 * there is nothing to base one on). See docs/api.md for how the estimate is computed.
 */
public record QueueStatus(PendingReason reason, int position, Instant predictedStart) {}

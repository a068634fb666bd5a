package dev.baton.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A fleet upgrade (issue 41): its runners, in order, are drained, told to update to
 * {@code version} (from {@code url}, checked against {@code checksum}) and waited for until they
 * rejoin reporting it, at most {@code maxUnavailable} at a time, each within {@code rejoinTimeout}.
 * {@code state} is {@code running}, {@code succeeded} or {@code failed} (then {@code reason} names
 * the runner); {@code target} says which runners were chosen ({@code all}, {@code spec:<slug>},
 * {@code runner:<slug>}).
 */
public record Roll(
        long id,
        UUID uuid,
        String state,
        String target,
        String version,
        String url,
        String checksum,
        int maxUnavailable,
        Duration rejoinTimeout,
        String reason,
        String createdBy,
        Instant created,
        Instant modified,
        Instant ended,
        List<RollStep> steps) {
    public static final String RUNNING = "running";
    public static final String SUCCEEDED = "succeeded";
    public static final String FAILED = "failed";

    public Roll {
        steps = List.copyOf(steps);
    }

    public boolean isRunning() {
        return RUNNING.equals(state);
    }
}

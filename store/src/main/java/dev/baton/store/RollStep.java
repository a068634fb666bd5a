package dev.baton.store;

import java.time.Instant;

/**
 * One runner of a {@link Roll}: {@code pending} (not reached yet), {@code updating} (drained and
 * told to update at {@code started}; the roll waits for it to rejoin), {@code done} (it rejoined at
 * the roll's version), {@code skipped} (already at that version, or not connected when its turn
 * came) or {@code failed}; {@code message} says what happened, {@code fromVersion} what it ran
 * when its turn came.
 */
public record RollStep(
        int position,
        long runnerId,
        String runnerSlug,
        String state,
        String fromVersion,
        Instant started,
        Instant ended,
        String message) {
    public static final String PENDING = "pending";
    public static final String UPDATING = "updating";
    public static final String DONE = "done";
    public static final String SKIPPED = "skipped";
    public static final String FAILED = "failed";

    public boolean isFinished() {
        return DONE.equals(state) || SKIPPED.equals(state) || FAILED.equals(state);
    }
}

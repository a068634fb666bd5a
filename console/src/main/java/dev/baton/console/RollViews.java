package dev.baton.console;

import java.time.Instant;
import java.util.List;

/** What the fleet roll form and pages show (issue 41); see {@link RollPages}. */
public final class RollViews {
    private RollViews() {}

    /** One choice of the form's "which runners" list: {@code all}, {@code spec:<slug>} or {@code runner:<slug>}. */
    public record Target(String value, String label, boolean chosen) {}

    /**
     * The "roll an update" form, filled again with what was sent when the API refused it
     * ({@code error}); the spec and runner targets are the unarchived ones.
     */
    public record RollForm(
            List<Target> specs,
            List<Target> runners,
            boolean all,
            String url,
            String checksum,
            String version,
            String maxUnavailable,
            String timeout,
            String error) {}

    /** A roll as the list shows it: {@code finished} of {@code total} runners have ended their step. */
    public record RollRow(
            String uuid,
            String state,
            String target,
            String version,
            String createdBy,
            Instant created,
            Instant ended,
            String reason,
            int finished,
            int total) {
        public String href() {
            return "/console/rolls/" + uuid;
        }

        public String shortId() {
            return uuid.length() > 8 ? uuid.substring(0, 8) : uuid;
        }

        public boolean running() {
            return "running".equals(state);
        }
    }

    /** One runner's step in a roll: pending, updating, done, skipped or failed, with what happened. */
    public record StepRow(
            String runner, String state, String fromVersion, Instant started, Instant ended, String message) {}

    /** A roll's page: the roll, where it went from and to, and each runner's step in order. */
    public record RollPage(
            RollRow roll,
            String url,
            String checksum,
            int maxUnavailable,
            long rejoinTimeoutSeconds,
            List<StepRow> steps) {}
}

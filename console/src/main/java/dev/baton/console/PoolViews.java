package dev.baton.console;

import dev.baton.console.Views.JobRef;
import java.time.Instant;
import java.util.List;

/** What the console's pool page shows (issue 43): each pool with its settings and provider's state, and its machines. */
public final class PoolViews {
    private PoolViews() {}

    /**
     * A pool. {@code reason} is the failing provider's, shown while it backs off (until
     * {@code backoffUntil}); {@code failedStarts} counts the starts that failed over its life.
     */
    public record PoolRow(
            String slug,
            String spec,
            String labels,
            String provider,
            int minIdle,
            int max,
            String idleTimeout,
            String bootTimeout,
            String reason,
            Instant backoffUntil,
            int failedStarts,
            List<MachineRow> machines) {
        public long live() {
            return machines.stream().filter(m -> !m.ended()).count();
        }
    }

    /**
     * One machine: {@code age} is how long it has lived (to now, or to its end once it ended),
     * {@code runner} its single-job runner's slug, {@code job} the job it took (null: none yet),
     * {@code reason} why it ended (boot timeout, provider failure, idle, after its job, shrink).
     */
    public record MachineRow(
            String id,
            String state,
            String providerId,
            String runner,
            JobRef job,
            String reason,
            Instant started,
            String age,
            boolean ended) {}
}

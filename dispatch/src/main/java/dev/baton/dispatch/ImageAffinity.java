package dev.baton.dispatch;

import dev.baton.protocol.value.ImageDigest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Image affinity (issue 19; docs/scheduling.md "Image affinity"; ADR 0015): which waiting runner
 * goes first. In every pump, before the ordinary claims, a runner that holds the image of the job
 * its claim would take next claims first; then every runner claims as before. So a job goes to a
 * warm runner when one waits, and to a cold one at once when none does: a preference, never a
 * wait.
 *
 * <p>Jobs keep their order (a warm runner takes the head of its queue, never a younger job whose
 * image it holds), so no job waits longer for affinity. Runners could starve instead — a runner
 * that never holds the images would only get the jobs warm runners are too busy for — so a
 * runner passed over {@link #MAX_PASSES} times in a row while it waited for a job of the same
 * spec goes first in its next pump, warm or not. Counts live on the node that serves the runner
 * and are dropped when it disconnects.
 */
public final class ImageAffinity {
    /** How many jobs may go to warm runners ahead of a waiting runner before it goes first. */
    public static final int MAX_PASSES = 3;

    private final boolean enabled;
    /** Runner id → jobs handed to warm runners ahead of it since it last got one. */
    private final Map<Long, Integer> passedOver = new ConcurrentHashMap<>();

    ImageAffinity(boolean enabled) {
        this.enabled = enabled;
    }

    boolean enabled() {
        return enabled;
    }

    /** Whether the runner has been passed over often enough to go first, ahead of warm runners. */
    boolean due(long runnerId) {
        return enabled && passedOver.getOrDefault(runnerId, 0) >= MAX_PASSES;
    }

    /** Whether a runner holding {@code held} (null: reports none) goes first for a job of {@code next}. */
    boolean warm(List<ImageDigest> held, Optional<ImageDigest> next) {
        return enabled && held != null && next.isPresent() && held.contains(next.get());
    }

    /** The runner got a job: its count starts again. */
    void served(long runnerId) {
        passedOver.remove(runnerId);
    }

    /** A job it could have taken went to a warm runner while it waited. */
    void passedOver(long runnerId) {
        if (enabled) passedOver.merge(runnerId, 1, Integer::sum);
    }

    void forget(long runnerId) {
        passedOver.remove(runnerId);
    }
}

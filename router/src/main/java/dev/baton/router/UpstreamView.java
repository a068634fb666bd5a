package dev.baton.router;

import dev.baton.protocol.message.HeldImages;
import dev.baton.protocol.value.ImageDigest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * What the router tells the server about the runners behind it that wait (docs/scheduling.md,
 * "Through a router"), and the order it offers a job to them. Label routing and image affinity
 * then work through a router as they do for runners connected to the server directly.
 */
final class UpstreamView {
    private UpstreamView() {}

    /**
     * The labels every waiting runner has. The server then hands the router only jobs whose
     * required labels all of them have, so whichever of them the router offers the job to may
     * take it; a label only some have is not advertised (a job requiring it waits until those
     * runners are the only ones waiting, or goes through another router or runner).
     */
    static Map<String, String> labels(List<Downstream> waiting) {
        if (waiting.isEmpty()) return Map.of();
        Map<String, String> common = new HashMap<>(waiting.getFirst().labels);
        for (Downstream r : waiting) common.entrySet().retainAll(r.labels.entrySet());
        return Map.copyOf(common);
    }

    /**
     * The images any waiting runner holds, most recent first per runner and interleaved across
     * runners, at most {@link HeldImages#MAX}; null when none reports images. The server then
     * prefers the router for a job one of them holds, and {@link #warmFirst} offers it to that runner.
     */
    static List<ImageDigest> images(List<Downstream> waiting) {
        LinkedHashSet<ImageDigest> union = new LinkedHashSet<>();
        boolean reported = false;
        int longest = 0;
        for (Downstream r : waiting) {
            if (r.images == null) continue;
            reported = true;
            longest = Math.max(longest, r.images.size());
        }
        if (!reported) return null;
        for (int i = 0; i < longest && union.size() < HeldImages.MAX; i++) {
            for (Downstream r : waiting) {
                if (r.images != null && i < r.images.size() && union.size() < HeldImages.MAX)
                    union.add(r.images.get(i));
            }
        }
        return List.copyOf(union);
    }

    /** The runners in the order a job is offered to them: those holding its image first, otherwise as connected. */
    static List<Downstream> warmFirst(Collection<Downstream> runners, HeldJob job) {
        List<Downstream> ordered = new ArrayList<>();
        for (Downstream r : runners) if (r.holds(job)) ordered.add(r);
        for (Downstream r : runners) if (!r.holds(job)) ordered.add(r);
        return ordered;
    }
}

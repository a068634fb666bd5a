package dev.baton.protocol.model;

import dev.baton.protocol.value.Labels;
import java.util.Map;
import java.util.TreeMap;

/**
 * Labels a runner's executor implies, reported with the runner's own labels so that the claim
 * matches a job to a runner that can run it (docs/scheduling.md, "Capability labels"; decision
 * 0076). One today: {@value #BASELINE_IMAGE}{@code =true}, from a runner whose executor runs a
 * paired job's baseline in an image of its own (the runc and microVM executors). A job with a
 * baseline image requires it, so it is offered only to such runners, through a router too, and a
 * spec without one says so in its pending reason rather than failing after every other runner
 * declined.
 *
 * <p>Labels rather than a claim rule of their own: the claim, the decline rounds, the router's
 * advertised labels and the pending reasons already honour required labels on both databases.
 * Runners older than the label do not report it, so they are not offered such jobs (they would
 * run the baseline side in the job's image).
 */
public final class CapabilityLabels {
    /** Reported {@code true} by a runner whose executor runs a baseline image; required by a job that has one. */
    public static final String BASELINE_IMAGE = "baton.dev/baseline-image";

    public static final String TRUE = "true";

    private CapabilityLabels() {}

    /**
     * What a runner reports: its own labels with the ones its capabilities imply. The executor
     * decides a capability label, not the operator: a {@code --label} of the same key is replaced
     * (or dropped when the executor cannot). Refused when the two together exceed
     * {@link Labels#MAX_LABELS}.
     */
    public static Map<String, String> reported(Map<String, String> own, RunnerCapabilities capabilities) {
        Map<String, String> all = new TreeMap<>(own == null ? Map.of() : own);
        all.remove(BASELINE_IMAGE);
        if (capabilities != null && Boolean.TRUE.equals(capabilities.baselineImage())) all.put(BASELINE_IMAGE, TRUE);
        if (all.size() > Labels.MAX_LABELS) {
            throw new IllegalArgumentException("at most " + (Labels.MAX_LABELS - 1)
                    + " labels with an executor that runs baseline images (it reports " + BASELINE_IMAGE
                    + " itself), got " + (all.size() - 1));
        }
        return Labels.of(all);
    }

    /** The labels a job requires: {@code required}, and a baseline image's when it has one. */
    public static Map<String, String> required(Map<String, String> required, boolean baselineImage) {
        if (!baselineImage) return required;
        Map<String, String> all = new TreeMap<>(required == null ? Map.of() : required);
        all.put(BASELINE_IMAGE, TRUE);
        return all;
    }
}

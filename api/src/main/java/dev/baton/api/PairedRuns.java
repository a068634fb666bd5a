package dev.baton.api;

import dev.baton.core.adapter.Adapter;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.registry.Images;
import dev.baton.store.Project;
import dev.baton.web.http.ApiException;
import java.security.SecureRandom;
import java.util.List;

/**
 * The paired-run fields of {@code POST /v0/run} (issue 45, docs/paired-runs.md): the baseline (a
 * command, an image of the project's registry, or both), the pairs and the sequential design.
 */
final class PairedRuns {
    /** A paired run's pairs when it names neither {@code pairs} nor {@code until_significant}. */
    static final int DEFAULT_PAIRS = 10;

    /** Draws each paired run's pair order. */
    private final SecureRandom seeds = new SecureRandom();

    private final Images images;

    PairedRuns(Images images) {
        this.images = images;
    }

    private static void onlyPaired(String field, Object value) {
        if (value != null) throw ApiException.invalidField(field, field + " applies only to a paired run (baseline)");
    }

    /**
     * A paired run's fields (issue 45, docs/paired-runs.md): a baseline command, image or both
     * (the image is resolved later, in {@link #withBaselineImage}), then either a
     * fixed number of pairs (default 10) or {@code until_significant} with at most {@code pairs}
     * (default the most, 200), an optional {@code budget} in seconds and {@code min_effect}. The
     * pair order's seed is drawn here, so a rerun draws a new order.
     */
    PairedConfig paired(RunRequest r, Adapter adapter, String resultsFile) {
        if (r.baseline() == null) {
            onlyPaired("pairs", r.pairs());
            onlyPaired("until_significant", r.untilSignificant());
            onlyPaired("budget", r.budget());
            onlyPaired("min_effect", r.minEffect());
            return null;
        }
        List<String> cmd = RunValidator.args("baseline.cmd", r.baseline().cmd());
        if (cmd != null && cmd.isEmpty())
            throw ApiException.invalidField("baseline.cmd", "a paired run's baseline cmd must not be empty");
        String baselineImage = r.baseline().image();
        if (baselineImage == null && cmd == null)
            throw ApiException.invalidField(
                    "baseline",
                    "a paired run's baseline needs an image, a cmd or both: {\"image\": ..., \"cmd\": [...]}");
        if (baselineImage != null && !Images.isReference(baselineImage))
            throw ApiException.invalidField(
                    "baseline.image",
                    "baseline.image must be a digest (sha256: and 64 lowercase hex digits) or a tag of the"
                            + " project's registry ('v1', or 'path:v1'), got '" + baselineImage + "'");
        if (baselineImage != null && r.image() == null)
            throw new ApiException(
                    400,
                    "baseline_image_without_image",
                    "baseline.image needs the run's own image: a run without an image is a command for a"
                            + " trusted runner's process executor, which runs no images",
                    "baseline.image");
        if (r.iterations() != null)
            throw ApiException.invalidField(
                    "iterations", "a paired run runs each side once per pair: give pairs, not iterations");
        boolean sequential = Boolean.TRUE.equals(r.untilSignificant());
        if (!sequential && r.budget() != null)
            throw ApiException.invalidField("budget", "budget applies only with until_significant");
        if (!sequential && r.minEffect() != null)
            throw ApiException.invalidField("min_effect", "min_effect applies only with until_significant");
        int pairs = r.pairs() == null ? (sequential ? PairedConfig.MAX_PAIRS : DEFAULT_PAIRS) : r.pairs();
        if (pairs < PairedConfig.MIN_PAIRS || pairs > PairedConfig.MAX_PAIRS)
            throw ApiException.invalidField(
                    "pairs",
                    "pairs must be between " + PairedConfig.MIN_PAIRS + " and " + PairedConfig.MAX_PAIRS + ", got "
                            + pairs);
        if (r.budget() != null && (r.budget() < 1 || r.budget() > JobTimeout.MAX))
            throw ApiException.invalidField(
                    "budget", "budget must be between 1 and " + JobTimeout.MAX + " seconds, got " + r.budget());
        if (r.minEffect() != null && !(r.minEffect() > 0 && r.minEffect() <= 1))
            throw ApiException.invalidField(
                    "min_effect", "min_effect is a fraction of the baseline's mean in (0, 1], got " + r.minEffect());
        return new PairedConfig(
                cmd,
                pairs,
                seeds.nextLong(),
                sequential ? Boolean.TRUE : null,
                r.budget(),
                r.minEffect(),
                adapter.name(),
                resultsFile,
                null); // the baseline image's digest is resolved with the run's own (onRunner)
    }

    /**
     * A paired run's baseline image (issue 45), resolved in the project's registry as the run's
     * own image is: it must be there, and something must name the baseline's command (the image,
     * the baseline's cmd or the run's entrypoint, which both sides share).
     */
    PairedConfig withBaselineImage(
            PairedConfig paired, RunRequest.Baseline baseline, Project project, List<String> entrypoint) {
        if (paired == null || baseline.image() == null) return paired;
        Images.Resolved image = images.find(project.uuid(), baseline.image())
                .orElseThrow(() -> new ApiException(
                        422,
                        "image_not_found",
                        "baseline image '" + baseline.image() + "' is not in the registry of project '" + project.slug()
                                + "': push it first (baton image push) and give its digest or tag",
                        "baseline.image"));
        boolean command = (entrypoint != null && !entrypoint.isEmpty()) || paired.baselineCmd() != null;
        if (image.commandKnown() && !image.hasCommand() && !command) {
            throw new ApiException(
                    422,
                    "no_command",
                    "baseline image '" + baseline.image() + "' names no Entrypoint or Cmd in its config and the"
                            + " baseline gives no cmd: give baseline.cmd so the runner knows what to execute",
                    "baseline.cmd");
        }
        return new PairedConfig(
                paired.baselineCmd(),
                paired.pairs(),
                paired.seed(),
                paired.untilSignificant(),
                paired.budget(),
                paired.minEffect(),
                paired.adapter(),
                paired.resultsFile(),
                ImageDigest.of(image.digest()));
    }
}

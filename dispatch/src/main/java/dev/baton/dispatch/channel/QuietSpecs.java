package dev.baton.dispatch.channel;

import dev.baton.store.Spec;
import java.util.List;
import java.util.function.Supplier;

/**
 * The specs a runner's {@code ready} may claim, given its noise (decision 0052): a spec with a
 * {@code max_noise_cv} is left out when the runner's latest calibration's largest CV is above it,
 * or when the runner has none. The ready's own narrowing (a router's {@code specs}) is kept.
 * Unchanged, without reading the runner's noise, when none of its specs has a limit: the claim of
 * every runner not serving such a spec costs what it cost before.
 */
final class QuietSpecs {
    private QuietSpecs() {}

    /**
     * @param served the runner's specs
     * @param asked the ready's {@code specs} (null: all of them)
     * @param latestCv the runner's latest calibration's largest CV, null when it has none; read only when needed
     */
    static List<String> narrow(List<Spec> served, List<String> asked, Supplier<Double> latestCv) {
        boolean limited = served.stream().anyMatch(s -> s.archived() == null && s.maxNoiseCv() != null);
        if (!limited) return asked;
        Double cv = latestCv.get();
        return served.stream()
                .filter(s -> s.archived() == null)
                .filter(s -> asked == null || asked.contains(s.slug().value()))
                .filter(s -> s.quietEnough(cv))
                .map(s -> s.slug().value())
                .toList();
    }
}

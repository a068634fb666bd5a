package dev.baton.alerts;

import dev.baton.store.ThresholdRule;

/**
 * Checks a threshold as a user wrote it and fills its defaults (docs/alerts.md, "Thresholds"):
 * a known model; boundaries that fit the model (a confidence level strictly between 0.5 and 1, a
 * positive factor, a non-negative fraction, finite fixed values with lower ≤ upper); a window of
 * at least one sample and one day; a minimum no smaller than the model needs. The measure is
 * checked by the caller, which knows the project's measures.
 */
public final class ThresholdRules {
    /** The window when none is given: the last 64 samples. */
    public static final int DEFAULT_MAX_SAMPLES = 64;

    /** The largest window: a direct run is judged as it is stored, one baseline read per metric (issue 44). */
    public static final int MAX_SAMPLES = 1_000;
    /** The boundary set when a statistical threshold gives neither: slower (or larger) is worse. */
    public static final double DEFAULT_CONFIDENCE = 0.99;

    public static final double DEFAULT_FACTOR = 1.5;
    public static final double DEFAULT_FRACTION = 0.10;

    private ThresholdRules() {}

    /** The rule as it will be stored, or {@link InvalidThreshold} naming the first bad field. */
    public static ThresholdRule check(ThresholdRule r) {
        if (r.model() == null) throw new InvalidThreshold("model", "model is required: one of " + names());
        Model model = Model.of(r.model())
                .orElseThrow(
                        () -> new InvalidThreshold("model", "unknown model '" + r.model() + "': one of " + names()));
        if (r.testbed() == null || r.testbed().isBlank()) throw new InvalidThreshold("testbed", "testbed is required");
        if (r.measure() == null || r.measure().isBlank()) throw new InvalidThreshold("measure", "measure is required");
        Double lower = r.lowerBoundary();
        Double upper = r.upperBoundary();
        if (lower == null && upper == null) {
            if (model == Model.STATIC)
                throw new InvalidThreshold(
                        "upper_boundary", "a static threshold needs lower_boundary or upper_boundary");
            upper = switch (model.kind()) {
                case CONFIDENCE -> DEFAULT_CONFIDENCE;
                case FACTOR -> DEFAULT_FACTOR;
                case FRACTION -> model == Model.CHANGE_POINT ? ChangePoints.MIN_CHANGE : DEFAULT_FRACTION;
                case FIXED -> throw new AssertionError("handled above");
            };
        }
        checkBoundary(model, "lower_boundary", lower);
        checkBoundary(model, "upper_boundary", upper);
        if (model == Model.STATIC && lower != null && upper != null && lower > upper) {
            throw new InvalidThreshold("lower_boundary", "lower_boundary must not be above upper_boundary");
        }
        Integer maxSamples =
                r.maxSamples() == null && r.maxDays() == null ? Integer.valueOf(DEFAULT_MAX_SAMPLES) : r.maxSamples();
        if (maxSamples != null && maxSamples < 1)
            throw new InvalidThreshold("max_samples", "max_samples must be at least 1");
        if (maxSamples != null && maxSamples > MAX_SAMPLES)
            throw new InvalidThreshold(
                    "max_samples",
                    "max_samples must be at most " + MAX_SAMPLES + " (a direct run is judged as it is stored)");
        if (r.maxDays() != null && r.maxDays() < 1)
            throw new InvalidThreshold("max_days", "max_days must be at least 1");
        int minSamples = r.minSamples() < 0 ? model.minimumBaseline() : r.minSamples();
        if (minSamples < model.minimumBaseline()) {
            throw new InvalidThreshold(
                    "min_samples",
                    "model " + model.wireName() + " needs min_samples of at least " + model.minimumBaseline());
        }
        if (maxSamples != null && minSamples > maxSamples)
            throw new InvalidThreshold("min_samples", "min_samples must not exceed max_samples");
        return new ThresholdRule(
                blankToNull(r.branch()),
                r.testbed(),
                r.specId(),
                r.measure(),
                blankToNull(r.benchmark()),
                model.wireName(),
                lower,
                upper,
                maxSamples,
                r.maxDays(),
                minSamples);
    }

    private static void checkBoundary(Model model, String field, Double v) {
        if (v == null) return;
        if (!Double.isFinite(v)) throw new InvalidThreshold(field, field + " must be a finite number");
        switch (model.kind()) {
            case CONFIDENCE -> {
                if (!(v > 0.5 && v < 1))
                    throw new InvalidThreshold(
                            field,
                            field + " of model " + model.wireName()
                                    + " is a confidence level and must be strictly between 0.5 and 1, got " + v);
            }
            case FACTOR -> {
                if (!(v > 0))
                    throw new InvalidThreshold(
                            field,
                            field + " of model " + model.wireName() + " is a factor and must be above 0, got " + v);
            }
            case FRACTION -> {
                if (!(v >= 0))
                    throw new InvalidThreshold(
                            field,
                            field + " of model " + model.wireName()
                                    + " is a fraction of the mean (0.05 = 5 %) and must not be negative, got " + v);
            }
            case FIXED -> {}
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static String names() {
        return String.join(
                ", ",
                java.util.Arrays.stream(Model.values()).map(Model::wireName).toList());
    }
}

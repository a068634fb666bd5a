package dev.baton.alerts;

/**
 * What a model made of a baseline: the lower and upper limit (null: that side not set, or the
 * baseline too small or unfit for the model) and the baseline's size, mean and sample standard
 * deviation (null where undefined).
 */
public record Limits(Double lower, Double upper, int baselineSize, Double mean, Double stddev) {

    /** "lower" or "upper" when {@code value} is strictly outside that limit, null when inside. */
    public String breached(double value) {
        if (lower != null && value < lower) return "lower";
        if (upper != null && value > upper) return "upper";
        return null;
    }
}

package dev.baton.core.adapter;

/**
 * One measure of one benchmark in Bencher Metric Format: a value and, when the tool gives them,
 * the bounds of its spread. Always in the measure's base unit (see {@link Units}).
 */
public record Metric(double value, Double lowerValue, Double upperValue) {

    public Metric {
        requireFinite("value", value);
        if (lowerValue != null) requireFinite("lower_value", lowerValue);
        if (upperValue != null) requireFinite("upper_value", upperValue);
    }

    public static Metric of(double value) {
        return new Metric(value, null, null);
    }

    /** This metric with every number multiplied by {@code factor} (a unit conversion). */
    Metric scaled(double factor) {
        return new Metric(
                value * factor,
                lowerValue == null ? null : lowerValue * factor,
                upperValue == null ? null : upperValue * factor);
    }

    private static void requireFinite(String field, double v) {
        if (!Double.isFinite(v)) throw new AdapterException(field + " must be a finite number, got " + v);
    }
}

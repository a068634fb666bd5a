package dev.baton.store;

import java.util.List;

/** One metric of a report being judged, with what each matching threshold made of it. */
public record MetricJudgement(String benchmark, String measure, double value, List<Boundary> boundaries) {

    public MetricJudgement {
        boundaries = List.copyOf(boundaries);
    }

    /**
     * One threshold's limits for the metric (null: that side unset, or too small a baseline) and
     * the baseline summary; {@code alertSide} is "lower" or "upper" when the value is outside
     * that limit, null when inside.
     */
    public record Boundary(
            long thresholdId,
            String model,
            Double lowerLimit,
            Double upperLimit,
            int baselineSize,
            Double baselineMean,
            Double baselineStddev,
            String alertSide) {}
}

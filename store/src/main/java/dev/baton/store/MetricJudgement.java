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
     * that limit, null when inside. {@code changePoints}: for a {@code change_point} threshold,
     * the change points it found in the window (the store revises the stored ones against them);
     * null for other models.
     */
    public record Boundary(
            long thresholdId,
            String model,
            Double lowerLimit,
            Double upperLimit,
            int baselineSize,
            Double baselineMean,
            Double baselineStddev,
            String alertSide,
            ChangePointWindow changePoints) {

        public Boundary(
                long thresholdId,
                String model,
                Double lowerLimit,
                Double upperLimit,
                int baselineSize,
                Double baselineMean,
                Double baselineStddev,
                String alertSide) {
            this(
                    thresholdId,
                    model,
                    lowerLimit,
                    upperLimit,
                    baselineSize,
                    baselineMean,
                    baselineStddev,
                    alertSide,
                    null);
        }
    }
}

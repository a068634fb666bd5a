package dev.baton.store;

import java.time.Instant;
import java.util.List;

/** One judged metric with the boundaries stored for it: a point of a history plot or a line of a report. */
public record MetricPoint(
        long id,
        String reportUuid,
        String branch,
        String testbed,
        String hash,
        String benchmark,
        String measure,
        double value,
        Instant at,
        List<StoredBoundary> boundaries) {

    public MetricPoint {
        boundaries = List.copyOf(boundaries);
    }

    /** A threshold's limits for this metric, as judged. */
    public record StoredBoundary(
            String thresholdUuid,
            String model,
            Double lowerLimit,
            Double upperLimit,
            int baselineSize,
            Double baselineMean,
            Double baselineStddev) {}
}

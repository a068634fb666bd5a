package dev.baton.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.store.MetricPoint;
import java.time.Instant;
import java.util.List;

/** A judged metric with the boundary each matching threshold computed for it (docs/alerts.md). */
public record MetricView(
        String report,
        String branch,
        String testbed,
        @JsonInclude(JsonInclude.Include.ALWAYS) String hash,
        String benchmark,
        String measure,
        double value,
        Instant at,
        List<BoundaryView> boundaries) {

    /** One threshold's limits for the metric (null: that side unset, or too small a baseline: the threshold only recorded). */
    public record BoundaryView(
            String threshold,
            String model,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double lowerLimit,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double upperLimit,
            AlertView.Baseline baseline) {}

    static MetricView of(MetricPoint p) {
        return new MetricView(
                p.reportUuid(),
                p.branch(),
                p.testbed(),
                p.hash(),
                p.benchmark(),
                p.measure(),
                p.value(),
                p.at(),
                p.boundaries().stream()
                        .map(b -> new BoundaryView(
                                b.thresholdUuid(),
                                b.model(),
                                b.lowerLimit(),
                                b.upperLimit(),
                                new AlertView.Baseline(b.baselineSize(), b.baselineMean(), b.baselineStddev())))
                        .toList());
    }
}

package dev.baton.server.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.server.store.Alert;
import java.time.Instant;

/**
 * An alert (docs/alerts.md): a metric of a report outside a threshold's boundary, with the side,
 * the value, the limit and the baseline summary the limit came from.
 */
public record AlertView(
        String uuid,
        String report,
        String branch,
        String testbed,
        @JsonInclude(JsonInclude.Include.ALWAYS) String hash,
        String benchmark,
        String measure,
        String threshold,
        String model,
        String side,
        double value,
        double limit,
        Baseline baseline,
        String status,
        Instant created,
        Instant modified) {

    /** The history the limit was computed from. */
    public record Baseline(
            int size,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double mean,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double stddev) {}

    static AlertView of(Alert a) {
        return new AlertView(
                a.uuid(),
                a.reportUuid(),
                a.branch(),
                a.testbed(),
                a.hash(),
                a.benchmark(),
                a.measure(),
                a.thresholdUuid(),
                a.model(),
                a.side(),
                a.value(),
                a.limit(),
                new Baseline(a.baselineSize(), a.baselineMean(), a.baselineStddev()),
                a.status(),
                a.created(),
                a.modified());
    }
}

package dev.baton.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.store.Alert;
import dev.baton.store.Triage;
import java.time.Instant;

/**
 * An alert (docs/alerts.md): a metric of a report outside a threshold's boundary, with the side,
 * the value, the limit and the baseline summary the limit came from; the group it belongs to and
 * its triage.
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
        Instant modified,
        String group,
        TriageView triage) {

    /** What a person made of the alert (docs/alerts.md, "Triage and groups"); null fields are left out. */
    public record TriageView(String state, String note, String commit, String by, Instant at) {
        static TriageView of(Triage t) {
            return new TriageView(t.state(), t.note(), t.commit(), t.by(), t.at());
        }
    }

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
                a.modified(),
                a.groupUuid(),
                TriageView.of(a.triage()));
    }
}

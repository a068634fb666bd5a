package dev.baton.server.alerts;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.server.store.Alert;
import java.time.Instant;

/**
 * The body a webhook receives for a new alert (docs/alerts.md, "Webhooks"): the event's name,
 * the project and the alert as the API shows it.
 */
public record AlertEvent(String event, String project, Body alert) {

    public static final String CREATED = "alert.created";

    /** The alert, with the same fields as {@code GET /v0/projects/{project}/alerts/{alert}}. */
    public record Body(
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
            Instant created) {}

    /** The history the limit was computed from. */
    public record Baseline(
            int size,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double mean,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double stddev) {}

    public static AlertEvent created(String projectUuid, Alert a) {
        return new AlertEvent(
                CREATED,
                projectUuid,
                new Body(
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
                        a.created()));
    }
}

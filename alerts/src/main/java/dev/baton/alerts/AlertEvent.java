package dev.baton.alerts;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.store.Alert;
import dev.baton.store.AlertGroup;
import java.time.Instant;

/**
 * The body a webhook receives for a new alert (docs/alerts.md, "Webhooks"): the event's name,
 * the project, the alert as the API shows it and, since issue 44, its group (the alerts of the
 * same report's judgement): a receiver that wants one message per change acts on a group once.
 */
public record AlertEvent(String event, String project, Body alert, Group group) {

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
            Instant created,
            String group,
            String triage) {}

    /**
     * The alert's group: its commit range ({@code previous_hash} exclusive to {@code hash}), how
     * many alerts it has and this alert's place among them (1-based, oldest first).
     */
    public record Group(
            String uuid,
            String report,
            String branch,
            String testbed,
            @JsonInclude(JsonInclude.Include.ALWAYS) String hash,
            @JsonInclude(JsonInclude.Include.ALWAYS) String previousHash,
            int alerts,
            int index) {

        static Group of(AlertGroup g, String alertUuid) {
            int index = 0;
            for (int i = 0; i < g.alerts().size(); i++) {
                if (g.alerts().get(i).uuid().equals(alertUuid)) index = i + 1;
            }
            return new Group(
                    g.uuid(),
                    g.reportUuid(),
                    g.branch(),
                    g.testbed(),
                    g.hash(),
                    g.previousHash(),
                    g.alerts().size(),
                    index);
        }
    }

    /** The history the limit was computed from. */
    public record Baseline(
            int size,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double mean,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double stddev) {}

    /** {@code group}: the alert's group, or null for an alert without one. */
    public static AlertEvent created(String projectUuid, Alert a, AlertGroup group) {
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
                        a.created(),
                        a.groupUuid(),
                        a.triage().state()),
                group == null ? null : Group.of(group, a.uuid()));
    }
}

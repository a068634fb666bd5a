package dev.baton.store;

import java.time.Instant;

/**
 * A metric outside a threshold's boundary (docs/alerts.md): which report, benchmark and measure,
 * which threshold and model, which side, the value, the limit and the baseline it came from.
 * {@code status} is "active" or "dismissed"; {@code groupUuid} the group of the alerts its
 * report's judgement raised, {@code triage} what a person made of it (docs/alerts.md, "Triage
 * and groups").
 */
public record Alert(
        long id,
        String uuid,
        long projectId,
        String reportUuid,
        String branch,
        String testbed,
        String hash,
        String benchmark,
        String measure,
        String thresholdUuid,
        String model,
        String side,
        double value,
        double limit,
        int baselineSize,
        Double baselineMean,
        Double baselineStddev,
        String status,
        Instant created,
        Instant modified,
        String groupUuid,
        Triage triage) {

    public static final String ACTIVE = "active";
    public static final String DISMISSED = "dismissed";
}

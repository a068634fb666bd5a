package dev.baton.store;

import java.time.Instant;
import java.util.List;

/**
 * What a person made of an alert (docs/alerts.md, "Triage and groups"; issue 44): its
 * {@code state}, a {@code note}, the {@code commit} a culprit names, who set it (the audit log's
 * actor) and when. An alert nobody triaged is {@link #UNTRIAGED} with the rest null.
 */
public record Triage(String state, String note, String commit, String by, Instant at) {
    public static final String UNTRIAGED = "untriaged";
    public static final String ACKNOWLEDGED = "acknowledged";
    public static final String EXPECTED = "expected";
    public static final String CULPRIT = "culprit";
    public static final String FALSE_POSITIVE = "false_positive";

    /** Every state, in the order the docs list them. */
    public static final List<String> STATES = List.of(UNTRIAGED, ACKNOWLEDGED, EXPECTED, CULPRIT, FALSE_POSITIVE);

    /** A group whose alerts are not all in one state. */
    public static final String MIXED = "mixed";

    public static final Triage NONE = new Triage(UNTRIAGED, null, null, null, null);
}

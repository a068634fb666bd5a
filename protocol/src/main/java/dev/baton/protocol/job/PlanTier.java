package dev.baton.protocol.job;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * An organization's plan, which fixes the priority of the jobs it submits (seed 001). The
 * priority is copied onto the job at creation and does not follow later plan changes.
 */
public enum PlanTier {
    ENTERPRISE(300),
    TEAM(200),
    FREE(100),
    UNCLAIMED(0);

    private final int priority;

    PlanTier(int priority) {
        this.priority = priority;
    }

    public int priority() {
        return priority;
    }

    /** The tier a stored priority falls in: ≥200 unlimited, 100–199 per organization, &lt;100 per source IP. */
    public static PlanTier ofPriority(int priority) {
        if (priority >= 300) return ENTERPRISE;
        if (priority >= 200) return TEAM;
        if (priority >= 100) return FREE;
        return UNCLAIMED;
    }

    public ConcurrencyLimit limit() {
        return switch (this) {
            case ENTERPRISE, TEAM -> ConcurrencyLimit.UNLIMITED;
            case FREE -> ConcurrencyLimit.ONE_PER_ORGANIZATION;
            case UNCLAIMED -> ConcurrencyLimit.ONE_PER_SOURCE_IP;
        };
    }

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static PlanTier parse(String text) {
        for (PlanTier t : values()) {
            if (t.wireName().equals(text)) return t;
        }
        throw new IllegalArgumentException("plan must be one of enterprise, team, free, unclaimed; got '" + text + "'");
    }

    public enum ConcurrencyLimit {
        UNLIMITED,
        ONE_PER_ORGANIZATION,
        ONE_PER_SOURCE_IP
    }
}

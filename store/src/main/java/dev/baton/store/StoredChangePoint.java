package dev.baton.store;

import java.time.Instant;

/**
 * A stored change point (docs/alerts.md, "Change points"; decision 0056): one metric on a branch
 * and testbed, found by a {@code change_point} threshold; its commit range ({@code previousHash}
 * exclusive to {@code hash}, the first commit of the new level) and reports; the means before and
 * after, the relative change with its interval and the p-value; its {@code state}
 * ({@link #CURRENT}, {@link #MOVED} to {@code replacedByUuid}, {@link #WITHDRAWN}); the alert that
 * raised it with its group and triage (null and {@link Triage#NONE} when no alert did); which
 * judgement found it and which revised it last.
 */
public record StoredChangePoint(
        long id,
        String uuid,
        long projectId,
        String thresholdUuid,
        String branch,
        String testbed,
        String benchmark,
        String measure,
        String reportUuid,
        String previousReportUuid,
        String hash,
        String previousHash,
        Instant startAt,
        double before,
        double after,
        double change,
        double changeLow,
        double changeHigh,
        double pValue,
        String state,
        String replacedByUuid,
        String alertUuid,
        String groupUuid,
        Triage triage,
        String foundByReportUuid,
        String revisedByReportUuid,
        Instant created,
        Instant modified) {

    public static final String CURRENT = "current";
    public static final String MOVED = "moved";
    public static final String WITHDRAWN = "withdrawn";

    /** Every state, in the order the docs list them. */
    public static final java.util.List<String> STATES = java.util.List.of(CURRENT, MOVED, WITHDRAWN);

    /** "upper" for a rise, "lower" for a fall. */
    public String side() {
        return after > before ? "upper" : "lower";
    }
}

package dev.baton.store;

import java.time.Instant;

/**
 * A change point a judgement found in a metric's window (docs/alerts.md, "Change points"):
 * {@code index} in the window (oldest first; the judged value is the last), the first report of
 * the new level and the last of the old one with their commits, the segments' means, the relative
 * change with its interval, the p-value, and whether the judged value revealed it (its alert).
 */
public record FoundChangePoint(
        int index,
        long startReportId,
        Long previousReportId,
        String hash,
        String previousHash,
        Instant startAt,
        double before,
        double after,
        double change,
        double changeLow,
        double changeHigh,
        double pValue,
        boolean revealed) {}

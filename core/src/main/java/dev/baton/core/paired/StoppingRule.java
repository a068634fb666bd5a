package dev.baton.core.paired;

import java.util.List;

/**
 * When a paired run with {@code until_significant} may stop (decisions 0050 and 0066): after a pair
 * where every judged metric is decided, that is, the always-valid interval of its median
 * difference ({@link MedianConfidenceSequence}) excludes zero, or is narrower than the minimum
 * effect (its half-width below {@code minEffect} times the baseline's mean): a difference that
 * large would have been seen. A run with no metric on both sides yet is not decided. The runner
 * asks this after each pair; the server reports the same intervals from the stored output.
 */
public final class StoppingRule {
    /** The error rate of the intervals: 95 % coverage, at every pair at once. */
    public static final double ALPHA = 0.05;

    private StoppingRule() {}

    public static boolean decided(List<PairedSamples.Series> series, double minEffect) {
        if (series.isEmpty()) return false;
        for (PairedSamples.Series s : series) {
            if (!decided(s, minEffect)) return false;
        }
        return true;
    }

    public static boolean decided(PairedSamples.Series s, double minEffect) {
        MedianConfidenceSequence.Interval interval = MedianConfidenceSequence.of(s.differences(), ALPHA);
        if (!interval.bounded()) return false;
        if (interval.lower() > 0 || interval.upper() < 0) return true;
        double halfWidth = (interval.upper() - interval.lower()) / 2;
        return halfWidth < minEffect * Math.abs(PairedSamples.mean(s.baseline()));
    }
}

package dev.baton.alerts;

import java.util.ArrayList;
import java.util.List;
import org.apache.commons.statistics.distribution.TDistribution;

/**
 * Change-point detection over a metric's history (issue 44; docs/alerts.md, "Change points"):
 * E-divisive means (Matteson and James 2014, "A nonparametric approach for multiple change point
 * analysis of multivariate data") with the significance test of Apache Otava (Fleming et al.
 * 2023, "Hunter: Using Change Point Detection to Hunt for Performance Regressions", arXiv
 * 2301.03034): Student's t-test between the two segments instead of a permutation test, so the
 * same series always gives the same change points.
 *
 * <p>As in Otava, the series is split top-down inside overlapping windows of {@link #WINDOW}
 * points (each window's best split by the E-divisive statistic q̂, kept while the t-test's
 * p-value is below 10 × the maximum), then the change points are merged bottom-up: the weakest
 * one (the highest p-value, or a relative change below the minimum) is dropped and its neighbours
 * are tested again against their new neighbours, until every one passes. {@link Online} keeps
 * what it found and, for a new point, recomputes only from the change point before the newest one.
 */
public final class ChangePoints {
    /** The fewest points of a segment: a new level is seen when its third point arrives. */
    public static final int MIN_SEGMENT = 3;
    /** Otava's default maximum p-value. */
    public static final double MAX_P_VALUE = 0.001;
    /** The least relative change of a change point by default (Nyrkiö's 5 %). */
    public static final double MIN_CHANGE = 0.05;
    /** Otava's window for the top-down split. */
    public static final int WINDOW = 50;
    /** How far a change point may move between two recomputes and still be the same one. */
    public static final int SAME_WITHIN = 5;
    /** Two-sided confidence of the interval on a change's relative size. */
    public static final double INTERVAL = 0.95;

    private ChangePoints() {}

    /**
     * One change point: the first index of the new segment, the means before and after (each
     * segment bounded by the neighbouring change points), the relative change (after − before) /
     * before with its {@link #INTERVAL} confidence interval, and the two-sided p-value of
     * Student's t-test between the segments.
     */
    public record ChangePoint(
            int index, double before, double after, double change, double changeLow, double changeHigh, double pValue) {

        /** "upper" for a rise, "lower" for a fall. */
        public String side() {
            return after > before ? "upper" : "lower";
        }
    }

    /** The change points of {@code x} with the default p-value and a least change. */
    public static List<ChangePoint> detect(double[] x, double minChange) {
        return detect(x, 0, x.length, MAX_P_VALUE, minChange);
    }

    /** The change points of {@code x[from, to)}, oldest first. */
    public static List<ChangePoint> detect(double[] x, int from, int to, double maxP, double minChange) {
        List<Integer> found = split(x, from, to, Math.min(1, maxP * 10));
        return merge(x, from, to, found, maxP, minChange);
    }

    /** Top-down: E-divisive inside overlapping windows, as Otava's split. */
    static List<Integer> split(double[] x, int from, int to, double maxP) {
        List<Integer> found = new ArrayList<>();
        int step = WINDOW / 2;
        int start = from;
        while (start < to) {
            int end = Math.min(start + WINDOW, to);
            List<Integer> inWindow = new ArrayList<>();
            divide(x, start, end, maxP, inWindow);
            inWindow.sort(null);
            for (int i : inWindow) if (found.isEmpty() || i > found.get(found.size() - 1)) found.add(i);
            int last = inWindow.isEmpty() ? start : inWindow.get(inWindow.size() - 1);
            if (end == to) break;
            start = Math.max(last, start + step);
        }
        return found;
    }

    private static void divide(double[] x, int from, int to, double maxP, List<Integer> out) {
        if (to - from < 2 * MIN_SEGMENT) return;
        int tau = bestSplit(x, from, to);
        if (tTest(x, from, tau, to) >= maxP) return;
        out.add(tau);
        divide(x, from, tau, maxP, out);
        divide(x, tau, to, maxP, out);
    }

    /**
     * The split τ of x[from, to) with both sides at least {@link #MIN_SEGMENT} long that maximises
     * q̂(τ) = τ(m − τ)/m × (2/(τ(m − τ)) Σ|xᵢ − xⱼ| − 2/(τ(τ − 1)) Σ|xᵢ − xₖ| − 2/((m − τ)(m − τ − 1)) Σ|xⱼ − xₖ|)
     * (α = 1), the sums over pairs across, left and right. Moving τ by one updates the three sums
     * with one row of distances, so the whole scan is O(m²).
     */
    static int bestSplit(double[] x, int from, int to) {
        int m = to - from;
        int tau = MIN_SEGMENT;
        double left = 0;
        double right = 0;
        double across = 0;
        for (int i = from; i < to; i++) {
            for (int j = i + 1; j < to; j++) {
                double d = Math.abs(x[i] - x[j]);
                if (j < from + tau) left += d;
                else if (i >= from + tau) right += d;
                else across += d;
            }
        }
        int best = tau;
        double bestQ = Double.NEGATIVE_INFINITY;
        while (true) {
            int nl = tau;
            int nr = m - tau;
            double e = 2 * across / ((double) nl * nr) - left / (nl * (nl - 1) / 2.0) - right / (nr * (nr - 1) / 2.0);
            double q = (double) nl * nr / m * e;
            if (q > bestQ) {
                bestQ = q;
                best = tau;
            }
            if (tau + 1 > m - MIN_SEGMENT) break;
            // Move x[from + tau] from the right side to the left.
            int k = from + tau;
            double toLeft = 0;
            double toRight = 0;
            for (int i = from; i < k; i++) toLeft += Math.abs(x[i] - x[k]);
            for (int j = k + 1; j < to; j++) toRight += Math.abs(x[k] - x[j]);
            left += toLeft;
            right -= toRight;
            across += toRight - toLeft;
            tau++;
        }
        return from + best;
    }

    /** The two-sided p-value of Student's t-test (pooled variance) between x[from, at) and x[at, to). */
    static double tTest(double[] x, int from, int at, int to) {
        return compare(x, from, at, to).pValue();
    }

    /** The change point at {@code at} between the segments x[from, at) and x[at, to). */
    static ChangePoint compare(double[] x, int from, int at, int to) {
        int nl = at - from;
        int nr = to - at;
        double ml = mean(x, from, at);
        double mr = mean(x, at, to);
        double ss = squares(x, from, at, ml) + squares(x, at, to, mr);
        int df = nl + nr - 2;
        double diff = mr - ml;
        double se = df < 1 ? 0 : Math.sqrt(ss / df * (1.0 / nl + 1.0 / nr));
        double p;
        double half;
        if (se == 0) {
            p = diff == 0 ? 1 : 0;
            half = 0;
        } else {
            TDistribution t = TDistribution.of(df);
            p = Math.min(1, 2 * t.survivalProbability(Math.abs(diff) / se));
            half = t.inverseSurvivalProbability((1 - INTERVAL) / 2) * se;
        }
        double scale = Math.abs(ml);
        double change = scale == 0 ? (diff == 0 ? 0 : Math.copySign(Double.POSITIVE_INFINITY, diff)) : diff / scale;
        double low = scale == 0 ? change : (diff - half) / scale;
        double high = scale == 0 ? change : (diff + half) / scale;
        return new ChangePoint(at, ml, mr, change, low, high, p);
    }

    /** Bottom-up: drop the weakest change point until all pass, as Otava's merge. */
    static List<ChangePoint> merge(
            double[] x, int from, int to, List<Integer> candidates, double maxP, double minChange) {
        List<Integer> kept = new ArrayList<>(candidates);
        while (true) {
            List<ChangePoint> tested = test(x, from, to, kept);
            int weakest = -1;
            for (int i = 0; i < tested.size(); i++) {
                ChangePoint c = tested.get(i);
                boolean fails = !(c.pValue() < maxP) || !(Math.abs(c.change()) >= minChange);
                if (!fails) continue;
                if (weakest < 0 || weaker(c, tested.get(weakest))) weakest = i;
            }
            if (weakest < 0) return tested;
            kept.remove(weakest);
        }
    }

    private static boolean weaker(ChangePoint a, ChangePoint b) {
        if (a.pValue() != b.pValue()) return a.pValue() > b.pValue();
        return Math.abs(a.change()) < Math.abs(b.change());
    }

    private static List<ChangePoint> test(double[] x, int from, int to, List<Integer> at) {
        List<ChangePoint> out = new ArrayList<>(at.size());
        for (int i = 0; i < at.size(); i++) {
            int left = i == 0 ? from : at.get(i - 1);
            int right = i == at.size() - 1 ? to : at.get(i + 1);
            out.add(compare(x, left, at.get(i), right));
        }
        return out;
    }

    private static double mean(double[] x, int from, int to) {
        double first = x[from];
        boolean constant = true;
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += x[i];
            constant &= x[i] == first;
        }
        // Identical values: their mean is the value (a sum can round past it).
        return constant ? first : sum / (to - from);
    }

    private static double squares(double[] x, int from, int to, double mean) {
        double s = 0;
        for (int i = from; i < to; i++) s += (x[i] - mean) * (x[i] - mean);
        return s;
    }

    /**
     * The limits a {@code change_point} threshold shows: the newest segment's mean (after the
     * history's last change point) moved by the least change of each side set.
     */
    static Limits limits(double[] baseline, Double lower, Double upper, Double mean, Double sd) {
        List<ChangePoint> found = detect(baseline, minChange(lower, upper));
        int from = found.isEmpty() ? 0 : found.get(found.size() - 1).index();
        double level = mean(baseline, from, baseline.length);
        return new Limits(
                lower == null ? null : level * (1 - lower),
                upper == null ? null : level * (1 + upper),
                baseline.length,
                mean,
                sd);
    }

    private static double minChange(Double lower, Double upper) {
        if (lower == null) return upper == null ? MIN_CHANGE : upper;
        return upper == null ? lower : Math.min(lower, upper);
    }

    /**
     * Whether {@code value}, arriving after {@code baseline} (oldest first), reveals a new change
     * point: the baseline is replayed through {@link Online} point by point and the value added
     * last, so the answer is the one a detector that had followed the metric through the window
     * would give: a change point that the points before did not have and that was not revealed
     * before (none within {@link #SAME_WITHIN} points), of a side whose boundary is set and at
     * least that large. Returns it, or null.
     */
    public static ChangePoint newChangePoint(double[] baseline, double value, Double lower, Double upper) {
        Online online = new Online(MAX_P_VALUE, lower, upper);
        for (double v : baseline) online.add(v);
        return online.add(value);
    }

    private static ChangePoint fresh(List<ChangePoint> before, List<ChangePoint> now, Double lower, Double upper) {
        for (int i = now.size() - 1; i >= 0; i--) {
            ChangePoint c = now.get(i);
            boolean known = before.stream().anyMatch(b -> Math.abs(b.index() - c.index()) <= SAME_WITHIN);
            if (known) return null; // older ones were known before too
            Double boundary = "upper".equals(c.side()) ? upper : lower;
            if (boundary != null && Math.abs(c.change()) >= boundary) return c;
        }
        return null;
    }

    /**
     * A metric's change points kept as its points arrive: a new point recomputes only from the
     * change point before the newest one (at most {@code 4 × WINDOW} points back); the ones
     * before stay as they were found.
     */
    public static final class Online {
        private final double maxP;
        private final Double lower;
        private final Double upper;
        private double[] series = new double[64];
        private int size;
        private List<ChangePoint> found = List.of();
        // Every change point revealed so far: one that disappears and comes back is not new.
        private final List<ChangePoint> revealed = new ArrayList<>();

        public Online(double maxP, Double lower, Double upper) {
            this.maxP = maxP;
            this.lower = lower;
            this.upper = upper;
        }

        /**
         * Adds the next point; returns the change point it revealed (see {@link #newChangePoint}:
         * one that neither the previous points had nor was revealed before, within
         * {@link #SAME_WITHIN} points), or null.
         */
        public ChangePoint add(double value) {
            if (size == series.length) series = java.util.Arrays.copyOf(series, size * 2);
            series[size++] = value;
            int from = found.size() >= 2 ? found.get(found.size() - 2).index() : 0;
            from = Math.max(from, size - 4 * WINDOW);
            List<ChangePoint> stable = new ArrayList<>();
            for (ChangePoint c : found) if (c.index() <= from) stable.add(c);
            List<ChangePoint> tail = detect(series, from, size, maxP, minChange(lower, upper));
            List<ChangePoint> now = new ArrayList<>(stable);
            for (ChangePoint c : tail) if (c.index() > from) now.add(c);
            List<ChangePoint> known = new ArrayList<>(found);
            known.addAll(revealed);
            ChangePoint fresh = now.isEmpty() ? null : fresh(known, now, lower, upper);
            if (fresh != null) revealed.add(fresh);
            found = List.copyOf(now);
            return fresh;
        }

        /** The change points found so far, oldest first. */
        public List<ChangePoint> changePoints() {
            return found;
        }
    }
}

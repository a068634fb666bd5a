package dev.baton.alerts;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * what it found and, for a new point, recomputes only from the change point before the newest one;
 * with the default settings it also tests the newest three points as one fixed split, so that a
 * clear step is revealed at its third point (decision 0071), the split proposes a window's
 * best split that one extreme point hid from its t-test (decision 0075), and a significant change
 * below the least change is kept as a cut between segments, never reported (decision 0077).
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
    /**
     * The fewest points before the newest {@link #MIN_SEGMENT} that the early warning compares
     * them with: fewer, and its quantile is nearly the segment's extreme, so three points beyond
     * it are no longer rare (beyond the largest of 20: 3!·20!/23! ≈ 0.0006 an arrival and side).
     */
    public static final int EARLY_BEFORE = 20;
    /**
     * The early warning's split must also pass Student's t-test at this share of the maximum
     * p-value, uncorrected (0.0001 at the default 0.001): three points beyond a quantile are rare
     * on normal noise, not on heavy tails, two modes or a drift (decision 0071; at 0.95 without
     * it: 1.5 false alerts per 1,000 points against 0.6).
     */
    public static final double EARLY_P_SHARE = 0.1;

    /**
     * With {@link ChangePointSettings#splitWinsorize}, the largest share of a window's points
     * beyond the clipping for the split to be proposed on clipped points: extremes are rare (on
     * normal noise 0.3 % lie beyond 3 deviations); when more lie beyond, the window's spread is
     * its shape (a trend, a plateau, two modes), not a few extremes (decision 0075).
     */
    public static final double SPLIT_EXTREMES = 0.05;

    private ChangePoints() {}

    /**
     * One change point: the first index of the new segment, the means before and after (each
     * segment bounded by the neighbouring change points or cuts), the relative change
     * (after − before) / before with its {@link #INTERVAL} confidence interval, and the two-sided
     * p-value of Student's t-test between the segments.
     */
    public record ChangePoint(
            int index, double before, double after, double change, double changeLow, double changeHigh, double pValue) {

        /** "upper" for a rise, "lower" for a fall. */
        public String side() {
            return after > before ? "upper" : "lower";
        }
    }

    /** The change points of {@code x} with the default settings and a least change. */
    public static List<ChangePoint> detect(double[] x, double minChange) {
        return detect(x, 0, x.length, ChangePointSettings.DEFAULT, minChange);
    }

    /** The change points of {@code x[from, to)} with the default settings at {@code maxP}, oldest first. */
    public static List<ChangePoint> detect(double[] x, int from, int to, double maxP, double minChange) {
        return detect(x, from, to, ChangePointSettings.DEFAULT.withMaxP(maxP), minChange);
    }

    /** The change points of {@code x[from, to)}, oldest first. */
    public static List<ChangePoint> detect(
            double[] x, int from, int to, ChangePointSettings settings, double minChange) {
        List<Integer> found = split(x, from, to, settings, null);
        return reported(merge(x, from, to, found, settings, minChange), settings, minChange);
    }

    /**
     * The change points among the kept splits: with {@link ChangePointSettings#smallCuts}, the
     * merge also keeps significant splits below the least change as cuts between segments;
     * they are not change points.
     */
    static List<ChangePoint> reported(List<Segments.Comparison> kept, ChangePointSettings settings, double minChange) {
        List<ChangePoint> out = new ArrayList<>(kept.size());
        for (Segments.Comparison c : kept) if (isChange(c, settings, minChange)) out.add(c.point());
        return out;
    }

    private static boolean isChange(Segments.Comparison c, ChangePointSettings settings, double minChange) {
        return Math.abs(c.point().change()) >= minChange && Segments.holds(c, settings, minChange);
    }

    /**
     * Top-down: E-divisive inside overlapping windows, as Otava's split. A window's split depends
     * only on its points, so {@code cache} (when given) keeps each window's result: a series that
     * only grows recomputes only its last window.
     */
    static List<Integer> split(
            double[] x, int from, int to, ChangePointSettings settings, Map<Long, List<Integer>> cache) {
        List<Integer> found = new ArrayList<>();
        int step = WINDOW / 2;
        int start = from;
        while (start < to) {
            int end = Math.min(start + WINDOW, to);
            long key = ((long) start << 32) | end;
            List<Integer> inWindow = cache == null ? null : cache.get(key);
            if (inWindow == null) {
                List<Integer> out = new ArrayList<>();
                divide(x, start, end, settings, out);
                out.sort(null);
                inWindow = List.copyOf(out);
                if (cache != null) cache.put(key, inWindow);
            }
            for (int i : inWindow) if (found.isEmpty() || i > found.get(found.size() - 1)) found.add(i);
            int last = inWindow.isEmpty() ? start : inWindow.get(inWindow.size() - 1);
            if (end == to) break;
            start = Math.max(last, start + step);
        }
        return found;
    }

    private static void divide(double[] x, int from, int to, ChangePointSettings settings, List<Integer> out) {
        if (to - from < 2 * settings.minSegment()) return;
        int tau = bestSplit(x, from, to, settings.minSegment());
        // Otava splits while p < 10 × the maximum; the merge applies the maximum itself.
        // With settings.splitWinsorize(), a split that fails on the points as they are is still
        // proposed when it passes with both sides clipped and at most SPLIT_EXTREMES of the
        // points lie beyond the clipping: one heavy-tailed point in a window of 50 can lift the
        // pooled deviation enough to hide a step from the split, which then never reaches the
        // merge. The merge decides on the points as they are (decision 0075).
        double maxP = Math.min(1, settings.maxP() * 10);
        Segments.Comparison c = Segments.comparison(x, from, tau, to, settings);
        boolean propose = Segments.significant(c, maxP, settings, from, to);
        if (!propose
                && Double.isFinite(settings.splitWinsorize())
                && Segments.shareBeyond(x, from, tau, to, settings.splitWinsorize()) <= SPLIT_EXTREMES) {
            Segments.Comparison clipped =
                    Segments.comparison(x, from, tau, to, settings.withWinsorize(settings.splitWinsorize()));
            propose = Segments.significant(clipped, maxP, settings, from, to);
        }
        if (!propose) return;
        out.add(tau);
        divide(x, from, tau, settings, out);
        divide(x, tau, to, settings, out);
    }

    /**
     * The split τ of x[from, to) with both sides at least {@link #MIN_SEGMENT} long that maximises
     * q̂(τ) = τ(m − τ)/m × (2/(τ(m − τ)) Σ|xᵢ − xⱼ| − 2/(τ(τ − 1)) Σ|xᵢ − xₖ| − 2/((m − τ)(m − τ − 1)) Σ|xⱼ − xₖ|)
     * (α = 1), the sums over pairs across, left and right. Moving τ by one updates the three sums
     * with one row of distances, so the whole scan is O(m²).
     */
    static int bestSplit(double[] x, int from, int to) {
        return bestSplit(x, from, to, MIN_SEGMENT);
    }

    static int bestSplit(double[] x, int from, int to, int minSegment) {
        int m = to - from;
        int tau = minSegment;
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
            if (tau + 1 > m - minSegment) break;
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

    /**
     * Bottom-up: drop the weakest change point until all pass, as Otava's merge. A change point
     * passes when its p-value is below the maximum and its relative change at least the least
     * change, and, with the robust settings, when its change is large against the noise and
     * holds on the medians of its segments too ({@link Segments#holds}). With {@link
     * ChangePointSettings#smallCuts} the least change is 0 here: what passes is every cut
     * between segments, and {@link #reported} picks the change points among them.
     */
    static List<Segments.Comparison> merge(
            double[] x, int from, int to, List<Integer> candidates, ChangePointSettings settings, double minChange) {
        double least = settings.smallCuts() ? 0 : minChange;
        List<Integer> kept = new ArrayList<>(candidates);
        List<Segments.Comparison> tested = new ArrayList<>(kept.size());
        for (int i = 0; i < kept.size(); i++) tested.add(compare(x, from, to, kept, i, settings));
        while (true) {
            int weakest = -1;
            for (int i = 0; i < kept.size(); i++) {
                Segments.Comparison c = tested.get(i);
                int left = i == 0 ? from : kept.get(i - 1);
                int right = i == kept.size() - 1 ? to : kept.get(i + 1);
                boolean fails = !Segments.significant(c, settings.maxP(), settings, left, right)
                        || !(Math.abs(c.point().change()) >= least)
                        || !Segments.holds(c, settings, least);
                if (!fails) continue;
                if (weakest < 0 || weaker(c.point(), tested.get(weakest).point())) weakest = i;
            }
            if (weakest < 0) return tested;
            kept.remove(weakest);
            tested.remove(weakest);
            // Only the neighbours' segments changed.
            if (weakest > 0) tested.set(weakest - 1, compare(x, from, to, kept, weakest - 1, settings));
            if (weakest < kept.size()) tested.set(weakest, compare(x, from, to, kept, weakest, settings));
        }
    }

    private static Segments.Comparison compare(
            double[] x, int from, int to, List<Integer> kept, int i, ChangePointSettings settings) {
        int left = i == 0 ? from : kept.get(i - 1);
        int right = i == kept.size() - 1 ? to : kept.get(i + 1);
        return Segments.comparison(x, left, kept.get(i), right, settings);
    }

    private static boolean weaker(ChangePoint a, ChangePoint b) {
        if (a.pValue() != b.pValue()) return a.pValue() > b.pValue();
        return Math.abs(a.change()) < Math.abs(b.change());
    }

    /**
     * The merge's checks on one given split, for diagnosis (the benchmark's list of missed steps,
     * decision 0075): x[from, at) against x[at, to) with the default settings, whether or not the
     * detector would ever test that split. No detection runs; nothing is kept.
     *
     * @param point the change point as the split would give it (means, relative change, p-value)
     * @param positions the split positions the correction multiplies the p-value by (m − 5)
     * @param medianChange the relative change of the medians
     * @param trendStep the step on a straight line common to both segments, relative to the mean before
     * @param mediansHold the medians lie on either side of the middle of the two means
     */
    public record SplitCheck(
            ChangePoint point, int positions, double medianChange, double trendStep, boolean mediansHold) {}

    /** {@link SplitCheck} of x[from, at) against x[at, to), each side at least one point. */
    public static SplitCheck check(double[] x, int from, int at, int to) {
        ChangePointSettings s = ChangePointSettings.DEFAULT;
        Segments.Comparison c = Segments.comparison(x, from, at, to, s);
        ChangePoint p = c.point();
        return new SplitCheck(
                p,
                to - from - 2 * s.minSegment() + 1,
                (c.medianAfter() - c.medianBefore()) / c.medianBefore(),
                c.trendStep() / p.before(),
                Segments.mediansHold(c));
    }

    /**
     * The limits a {@code change_point} threshold shows: the newest segment's mean (after the
     * history's last change point) moved by the least change of each side set.
     */
    static Limits limits(double[] baseline, Double lower, Double upper, Double mean, Double sd) {
        List<ChangePoint> found =
                detect(baseline, 0, baseline.length, ChangePointSettings.DEFAULT, minChange(lower, upper));
        int from = found.isEmpty() ? 0 : found.get(found.size() - 1).index();
        double level = Segments.mean(baseline, from, baseline.length);
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
        Online online = new Online(ChangePointSettings.DEFAULT, lower, upper);
        for (double v : baseline) online.add(v);
        return online.add(value);
    }

    private static ChangePoint fresh(
            List<ChangePoint> before, List<ChangePoint> now, Double lower, Double upper, int newest, int maxAge) {
        for (int i = now.size() - 1; i >= 0; i--) {
            ChangePoint c = now.get(i);
            boolean known = before.stream().anyMatch(b -> Math.abs(b.index() - c.index()) <= SAME_WITHIN);
            if (known) return null; // older ones were known before too
            if (newest - c.index() > maxAge) return null; // older ones are older still
            Double boundary = "upper".equals(c.side()) ? upper : lower;
            if (boundary != null && Math.abs(c.change()) >= boundary) return c;
        }
        return null;
    }

    /**
     * A metric's change points kept as its points arrive: a new point recomputes only from the
     * change point (or cut, decision 0077) before the newest one (at most {@code 4 × WINDOW}
     * points back, up to half a window more); the ones before stay as they were found. Each window's split is computed
     * once: a new point splits only the window it falls in, then merges.
     */
    public static final class Online {
        private final ChangePointSettings settings;
        private final Double lower;
        private final Double upper;
        private double[] series = new double[64];
        private int size;
        private List<ChangePoint> found = List.of();
        // The change points and, with settings.smallCuts(), the cuts below the least change.
        private List<Segments.Comparison> cuts = List.of();
        // Every change point revealed so far: one that disappears and comes back is not new.
        private final List<ChangePoint> revealed = new ArrayList<>();
        // A change point found but not yet confirmed by settings.confirm() later points, and for how many.
        private ChangePoint pending;
        private int pendingFor;
        // Each window's split, by its bounds: the points of a window never change.
        private final Map<Long, List<Integer>> splits = new HashMap<>();

        /** The default settings with the maximum p-value {@code maxP}. */
        public Online(double maxP, Double lower, Double upper) {
            this(
                    maxP == MAX_P_VALUE ? ChangePointSettings.DEFAULT : ChangePointSettings.DEFAULT.withMaxP(maxP),
                    lower,
                    upper);
        }

        public Online(ChangePointSettings settings, Double lower, Double upper) {
            this.settings = settings;
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
            int from = cuts.size() >= 2 ? cuts.get(cuts.size() - 2).point().index() : 0;
            // At most 4 × WINDOW points back, moved in steps of half a window so that the
            // windows' splits are found again in the cache.
            from = Math.max(from, Math.floorDiv(size - 4 * WINDOW, WINDOW / 2) * (WINDOW / 2));
            List<Segments.Comparison> held = new ArrayList<>();
            for (Segments.Comparison c : cuts) if (c.point().index() <= from) held.add(c);
            int oldest = from;
            splits.keySet().removeIf(k -> (k >>> 32) < oldest - 2 * WINDOW);
            List<Integer> candidates = split(series, from, size, settings, splits);
            double least = minChange(lower, upper);
            for (Segments.Comparison c : merge(series, from, size, candidates, settings, least))
                if (c.point().index() > from) held.add(c);
            if (settings.earlyQuantile() > 0) {
                Segments.Comparison early = early(held);
                if (early != null) held.add(early);
            }
            List<ChangePoint> now = new ArrayList<>(reported(held, settings, least));
            List<ChangePoint> known = new ArrayList<>(found);
            known.addAll(revealed);
            ChangePoint fresh = now.isEmpty() ? null : fresh(known, now, lower, upper, size - 1, settings.maxAge());
            if (settings.confirm() > 0) fresh = confirmed(now, fresh);
            if (settings.followMoves()) follow(now);
            if (fresh != null) revealed.add(fresh);
            found = List.copyOf(now);
            cuts = List.copyOf(held);
            return fresh;
        }

        /**
         * The early warning (settings.earlyQuantile()): a change at the first of the newest
         * {@link #MIN_SEGMENT} points when they all lie beyond the quantile of the segment before
         * them (from the newest change point held, at most {@link #WINDOW} points back, at least
         * {@link #EARLY_BEFORE}: none when a change point is held closer), measured from that
         * segment's least-squares line, each above the upper one or each below the lower one,
         * their median differs from that segment's by at least the least change, and the split
         * passes the checks of the merge besides its p-value
         * ({@link Segments#holds}: a step on a common trend, the medians). It is one fixed split
         * per arrival, not the best of many, so it needs no correction over split positions: on a
         * stationary series it fires at about 2 × (1 − q)³ of the arrivals (0.00025 at q = 0.95),
         * and a lone outlier never does, as all three points must agree. Heavy tails, two modes
         * and drift make three agreeing points less rare, so the split must also pass the t-test
         * at {@link #EARLY_P_SHARE} of the maximum p-value, uncorrected. The change point it
         * gives is held like any other: the next point recomputes it, and it moves or disappears.
         */
        private Segments.Comparison early(List<Segments.Comparison> now) {
            int at = size - MIN_SEGMENT;
            int start =
                    Math.max(now.isEmpty() ? 0 : now.get(now.size() - 1).point().index(), at - WINDOW);
            if (at - start < EARLY_BEFORE) return null;
            // Beyond the segment's straight line: its residuals' quantiles, and the newest
            // points' distances from the line carried on. On a trend the newest points of a
            // segment lie at its top without any step (a step on a trend would be placed early).
            int n = at - start;
            double meanI = (n - 1) / 2.0;
            double meanY = Segments.mean(series, start, at);
            double sii = 0;
            double siy = 0;
            for (int k = 0; k < n; k++) {
                sii += (k - meanI) * (k - meanI);
                siy += (k - meanI) * (series[start + k] - meanY);
            }
            double slope = siy / sii;
            double[] residuals = new double[n];
            for (int k = 0; k < n; k++) residuals[k] = series[start + k] - meanY - slope * (k - meanI);
            java.util.Arrays.sort(residuals);
            double high = quantile(residuals, settings.earlyQuantile());
            double low = quantile(residuals, 1 - settings.earlyQuantile());
            boolean above = true;
            boolean below = true;
            for (int i = at; i < size; i++) {
                double r = series[i] - meanY - slope * (i - start - meanI);
                above &= r > high;
                below &= r < low;
            }
            if (!above && !below) return null;
            double[] before = java.util.Arrays.copyOfRange(series, start, at);
            double least = minChange(lower, upper);
            double medianBefore = Segments.median(before);
            double medianAfter = Segments.median(java.util.Arrays.copyOfRange(series, at, size));
            if (!(Math.abs(medianAfter - medianBefore) >= least * Math.abs(medianBefore))) return null;
            Segments.Comparison c = Segments.comparison(series, start, at, size, settings);
            if (!(Math.abs(c.point().change()) >= least) || !Segments.holds(c, settings, least)) return null;
            if (!(c.point().pValue() < settings.maxP() * EARLY_P_SHARE)) return null;
            return c;
        }

        // The q-quantile of sorted values, interpolated between the two nearest (R's type 7).
        private static double quantile(double[] sorted, double q) {
            double h = q * (sorted.length - 1);
            int i = (int) Math.floor(h);
            int j = Math.min(i + 1, sorted.length - 1);
            return sorted[i] + (h - i) * (sorted[j] - sorted[i]);
        }

        // The change point to reveal now: the pending one once the later points found it again
        // (where they found it), else none; a fresh one waits for its confirmation.
        private ChangePoint confirmed(List<ChangePoint> now, ChangePoint fresh) {
            ChangePoint out = null;
            if (pending != null) {
                ChangePoint again = nearest(now, pending);
                pendingFor++;
                if (again == null) pending = null;
                else if (pendingFor >= settings.confirm()) {
                    out = again;
                    pending = null;
                } else pending = again;
            }
            if (fresh != null && pending == null && out == null) {
                pending = fresh;
                pendingFor = 0;
            }
            return out;
        }

        private static ChangePoint nearest(List<ChangePoint> now, ChangePoint was) {
            ChangePoint nearest = null;
            for (ChangePoint c : now) {
                int d = Math.abs(c.index() - was.index());
                if (d <= SAME_WITHIN && (nearest == null || d < Math.abs(nearest.index() - was.index()))) nearest = c;
            }
            return nearest;
        }

        // A revealed change point found again up to SAME_WITHIN away has moved there: known where it is now.
        private void follow(List<ChangePoint> now) {
            for (int r = 0; r < revealed.size(); r++) {
                ChangePoint nearest = nearest(now, revealed.get(r));
                if (nearest != null) revealed.set(r, nearest);
            }
        }

        /** The change points found so far, oldest first. */
        public List<ChangePoint> changePoints() {
            return found;
        }
    }
}

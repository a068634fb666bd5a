package dev.baton.alerts;

import java.util.Arrays;
import org.apache.commons.statistics.distribution.TDistribution;

/**
 * The comparison of two neighbouring segments that decides a change point (docs/alerts.md,
 * "Change points"; decision 0061): Student's t-test with pooled variance, as Otava, on the
 * segments winsorized around their medians when the settings ask, and the checks a change must
 * pass besides its p-value.
 */
final class Segments {
    /** σ of a normal distribution per median absolute deviation. */
    private static final double PER_MAD = 1.4826;
    /** σ of a normal distribution per mean absolute deviation, √(π/2). */
    private static final double PER_MEAN_DEVIATION = 1.2533;

    private Segments() {}

    /**
     * The comparison of x[from, at) with x[at, to): the change point, the pooled deviation, both
     * medians, and the step fitted on top of a straight line common to both segments.
     */
    record Comparison(
            ChangePoints.ChangePoint point, double sd, double medianBefore, double medianAfter, double trendStep) {}

    /**
     * Whether the split is significant at {@code maxP}: the t-test's p-value below it, or, with
     * {@link ChangePointSettings#perSplit}, below it divided by the number of split positions
     * E-divisive chose among (Bonferroni: the split tested is the best of them).
     */
    static boolean significant(Comparison c, double maxP, ChangePointSettings s, int from, int to) {
        double positions =
                s.perSplit() ? Math.pow(Math.max(1, to - from - 2 * s.minSegment() + 1), s.positionsPower()) : 1;
        return c.point().pValue() * positions < maxP;
    }

    static Comparison comparison(double[] x, int from, int at, int to, ChangePointSettings s) {
        double[] l = Arrays.copyOfRange(x, from, at);
        double[] r = Arrays.copyOfRange(x, at, to);
        double medianL = median(l);
        double medianR = median(r);
        if (Double.isFinite(s.winsorize())) winsorize(l, medianL, r, medianR, s.winsorize());
        int nl = l.length;
        int nr = r.length;
        double ml = mean(l, 0, nl);
        double mr = mean(r, 0, nr);
        double ss = squares(l, ml) + squares(r, mr);
        int df = nl + nr - 2;
        double diff = mr - ml;
        double sd = df < 1 ? 0 : Math.sqrt(ss / df);
        double se = sd * Math.sqrt(1.0 / nl + 1.0 / nr);
        if (s.dependence() && ss > 0) {
            // Lag-1 autocorrelation of the residuals within each segment; a positive one means
            // fewer independent points than points: the variance of a mean grows by (1 + ρ) / (1 − ρ).
            double lag = lagProducts(l, ml) + lagProducts(r, mr);
            double rho = Math.min(0.9, Math.max(0, lag / ss));
            se *= Math.sqrt((1 + rho) / (1 - rho));
        }
        double p;
        double half;
        if (se == 0) {
            p = diff == 0 ? 1 : 0;
            half = 0;
        } else {
            TDistribution t = TDistribution.of(df);
            p = Math.min(1, 2 * t.survivalProbability(Math.abs(diff) / se));
            half = t.inverseSurvivalProbability((1 - ChangePoints.INTERVAL) / 2) * se;
        }
        double scale = Math.abs(ml);
        double change = scale == 0 ? (diff == 0 ? 0 : Math.copySign(Double.POSITIVE_INFINITY, diff)) : diff / scale;
        double low = scale == 0 ? change : (diff - half) / scale;
        double high = scale == 0 ? change : (diff + half) / scale;
        double step = s.trendStep() > 0 ? stepOnTrend(l, r) : diff;
        return new Comparison(
                new ChangePoints.ChangePoint(at, ml, mr, change, low, high, p), sd, medianL, medianR, step);
    }

    /**
     * The step c of the least-squares fit y = a + b·i + c·[i ≥ split] over both segments (i the
     * index): the change that a common straight line does not explain. NaN when the line and
     * the step cannot be told apart.
     */
    static double stepOnTrend(double[] l, double[] r) {
        int n = l.length + r.length;
        double meanI = (n - 1) / 2.0;
        double meanD = (double) r.length / n;
        double meanY = (sum(l) + sum(r)) / n;
        double sii = 0;
        double sid = 0;
        double sdd = 0;
        double siy = 0;
        double sdy = 0;
        for (int k = 0; k < n; k++) {
            double y = k < l.length ? l[k] : r[k - l.length];
            double i = k - meanI;
            double d = (k < l.length ? 0 : 1) - meanD;
            double v = y - meanY;
            sii += i * i;
            sid += i * d;
            sdd += d * d;
            siy += i * v;
            sdy += d * v;
        }
        double det = sii * sdd - sid * sid;
        return det > 0 ? (sii * sdy - sid * siy) / det : Double.NaN;
    }

    private static double sum(double[] x) {
        double s = 0;
        for (double v : x) s += v;
        return s;
    }

    /**
     * Whether a change point that passed its p-value and least relative change also passes the
     * robust checks: a change of at least {@code minEffect} pooled deviations, (trendStep) a step
     * on top of a straight line common to both segments that goes the same way and is at least
     * that share of {@code minChange}, and (persist) the segments' medians on either side of the
     * middle of the two means, each on its own side.
     */
    static boolean holds(Comparison c, ChangePointSettings s, double minChange) {
        ChangePoints.ChangePoint p = c.point();
        double diff = p.after() - p.before();
        if (s.trendStep() > 0) {
            double least = s.trendStep() * minChange * Math.abs(p.before());
            if (!(c.trendStep() * Math.signum(diff) >= least)) return false;
        }
        if (s.minEffect() > 0 && Math.abs(diff) < s.minEffect() * c.sd()) return false;
        return !s.persist() || mediansHold(c);
    }

    /** Whether the segments' medians lie on either side of the middle of the two means, each on its own side. */
    static boolean mediansHold(Comparison c) {
        ChangePoints.ChangePoint p = c.point();
        double middle = (p.before() + p.after()) / 2;
        if (p.after() > p.before()) return c.medianAfter() > middle && c.medianBefore() < middle;
        if (p.after() < p.before()) return c.medianAfter() < middle && c.medianBefore() > middle;
        return true;
    }

    /**
     * Clips each segment at its median ± k robust deviations. The deviation is pooled over both
     * segments (each point's distance to its own segment's median), so a short segment takes the
     * scale of the long one: 1.4826 × their median, or, when more than half are 0 (a measure
     * that is mostly constant), √(π/2) × their mean; when that is 0 too, nothing is clipped.
     */
    private static void winsorize(double[] l, double medianL, double[] r, double medianR, double k) {
        double scale = robustScale(l, medianL, r, medianR);
        if (!(scale > 0) || !Double.isFinite(scale)) return;
        clip(l, medianL, k * scale);
        clip(r, medianR, k * scale);
    }

    /** The robust deviation that {@link #winsorize} clips by, pooled over both segments. */
    private static double robustScale(double[] l, double medianL, double[] r, double medianR) {
        double[] deviations = new double[l.length + r.length];
        for (int i = 0; i < l.length; i++) deviations[i] = Math.abs(l[i] - medianL);
        for (int i = 0; i < r.length; i++) deviations[l.length + i] = Math.abs(r[i] - medianR);
        double scale = PER_MAD * median(deviations);
        if (scale == 0) scale = PER_MEAN_DEVIATION * mean(deviations, 0, deviations.length);
        return scale;
    }

    /**
     * The share of the points of x[from, at) and x[at, to) beyond their own segment's median ±
     * k robust deviations ({@link #winsorize}'s), 0 when the deviation is 0.
     */
    static double shareBeyond(double[] x, int from, int at, int to, double k) {
        double[] l = Arrays.copyOfRange(x, from, at);
        double[] r = Arrays.copyOfRange(x, at, to);
        double medianL = median(l);
        double medianR = median(r);
        double scale = robustScale(l, medianL, r, medianR);
        if (!(scale > 0) || !Double.isFinite(scale)) return 0;
        int beyond = 0;
        for (double v : l) if (Math.abs(v - medianL) > k * scale) beyond++;
        for (double v : r) if (Math.abs(v - medianR) > k * scale) beyond++;
        return (double) beyond / (to - from);
    }

    private static void clip(double[] x, double median, double width) {
        for (int i = 0; i < x.length; i++) x[i] = Math.max(median - width, Math.min(median + width, x[i]));
    }

    static double median(double[] x) {
        double[] sorted = x.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    static double mean(double[] x, int from, int to) {
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

    private static double lagProducts(double[] x, double mean) {
        double s = 0;
        for (int i = 1; i < x.length; i++) s += (x[i - 1] - mean) * (x[i] - mean);
        return s;
    }

    private static double squares(double[] x, double mean) {
        double s = 0;
        for (double v : x) s += (v - mean) * (v - mean);
        return s;
    }
}

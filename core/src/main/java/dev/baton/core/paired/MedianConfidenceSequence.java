package dev.baton.core.paired;

import java.util.Arrays;

/**
 * An always-valid confidence sequence for the median of paired differences that assumes nothing
 * of their distribution: a sign test made sequential, after S. R. Howard and A. Ramdas,
 * "Sequential estimation of quantiles with applications to A/B-testing and best-arm
 * identification", Bernoulli 28(3), 2022 (decision 0066).
 *
 * <p>For a candidate median m, each difference below m is a coin that lands heads with
 * probability at most ½ (exactly ½ when m is the true median of a continuous distribution; at
 * most ½ with ties). With S heads in n pairs, the mixture over a uniform prior on p in [½, 1]
 *
 * <pre>M(n, S) = 2^(n+1) ∫_{½}^{1} p^S (1 − p)^(n − S) dp = 2^(n+1) · P(Bin(n + 1, ½) ≤ S) / ((n + 1) · C(n, S))</pre>
 *
 * is a nonnegative supermartingale for every p ≤ ½, so by Ville's inequality it ever reaches 2/α
 * with probability at most α/2, however often it is looked at. The same holds for the
 * differences above m. The sequence is every m that neither count rejects: with c the least
 * count at which M reaches 2/α, the interval runs from the c-th largest difference to the c-th
 * smallest. A neighbour's burst that stretches one side of a pair many times over moves one
 * count by one, where it would widen a mean's interval by its whole size: that is why a paired
 * run that looks after every pair judges the median.
 */
public final class MedianConfidenceSequence {

    /** The interval; both bounds infinite while too few pairs can reject anything. */
    public record Interval(double median, double lower, double upper) {
        public boolean bounded() {
            return Double.isFinite(lower) && Double.isFinite(upper);
        }
    }

    private MedianConfidenceSequence() {}

    public static Interval of(double[] differences, double alpha) {
        double[] d = differences.clone();
        Arrays.sort(d);
        int n = d.length;
        double median = n == 0 ? Double.NaN : n % 2 == 1 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
        int c = criticalCount(n, alpha);
        if (c > n) return new Interval(median, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY);
        return new Interval(median, d[n - c], d[c - 1]);
    }

    /**
     * The least count S (of n differences on one side of m) at which M(n, S) ≥ 2/α, or n + 1 when
     * even n of n does not reach it (with α = 0.05, before the eighth pair).
     */
    static int criticalCount(int n, double alpha) {
        double target = Math.log(2 / alpha);
        double[] logBinomialCdf = logCdfOfHalfBinomial(n + 1);
        double logTwoPow = (n + 1) * Math.log(2);
        double logChoose = 0; // log C(n, 0)
        for (int s = 0; s <= n; s++) {
            if (s > 0) logChoose += Math.log(n - s + 1) - Math.log(s);
            double logM = logTwoPow + logBinomialCdf[s] - Math.log(n + 1) - logChoose;
            if (s * 2 >= n && logM >= target) return s;
        }
        return n + 1;
    }

    /** log P(Bin(m, ½) ≤ s) for s = 0..m, summed in log space so that large m does not underflow. */
    private static double[] logCdfOfHalfBinomial(int m) {
        double[] out = new double[m + 1];
        double logPmf = -m * Math.log(2); // log C(m, 0) / 2^m
        double logCdf = logPmf;
        out[0] = logCdf;
        for (int s = 1; s <= m; s++) {
            logPmf += Math.log(m - s + 1) - Math.log(s);
            double hi = Math.max(logCdf, logPmf);
            logCdf = hi + Math.log(Math.exp(logCdf - hi) + Math.exp(logPmf - hi));
            out[s] = logCdf;
        }
        return out;
    }
}

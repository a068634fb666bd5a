package dev.baton.core.paired;

/**
 * An always-valid confidence sequence for the mean of Gaussian paired differences with unknown
 * variance: Lai's t-mixture (T. L. Lai, "On confidence sequences", Annals of Statistics 4(2),
 * 1976), the one Wang and Ramdas study in "Anytime-valid t-tests and confidence sequences for
 * Gaussian means with unknown variance" (Sequential Analysis, 2024). For a hypothesised mean μ
 * with t the one-sample t statistic of μ after n pairs and ν = n − 1, the mixture likelihood
 * ratio (a normal prior of variance {@code g} on the standardised effect, the right-Haar prior on
 * the scale) is
 *
 * <pre>BF(t) = (1 + n·g)^(−1/2) · [(1 + t²/ν) / (1 + t²/((1 + n·g)·ν))]^(n/2)</pre>
 *
 * a nonnegative martingale under μ in the scale-invariant filtration, so by Ville's inequality it
 * ever reaches 1/α with probability at most α, however often it is looked at. The sequence is every
 * μ with BF &lt; 1/α: the mean ± t*·s/√n with t* where BF(t*) = 1/α. That is why a run may stop at
 * the first pair whose interval excludes zero and still claim an error rate of α (decision 0050).
 */
public final class ConfidenceSequence {
    /** The prior variance of the standardised effect: one unit of information. */
    public static final double G = 1.0;

    private ConfidenceSequence() {}

    /**
     * The half-width of the interval after {@code n} pairs with sample standard deviation
     * {@code sd}, at error rate {@code alpha}; infinite while n is too small for any finite one
     * (with g = 1 and α = 0.05, before the fifth pair).
     */
    public static double halfWidth(int n, double sd, double alpha) {
        double tStar = criticalT(n, alpha);
        if (Double.isInfinite(tStar)) return Double.POSITIVE_INFINITY;
        return tStar * sd / Math.sqrt(n);
    }

    /** t* with BF(t*) = 1/α after n pairs, or infinity when BF stays below 1/α for every t. */
    static double criticalT(int n, double alpha) {
        if (n < 2) return Double.POSITIVE_INFINITY;
        double nu = n - 1;
        double target = Math.log(1 / alpha);
        double k = 1 + n * G;
        // As t grows, log BF rises to (n − 1)/2 · ln(1 + n·g): below the target, no finite t.
        if ((n - 1) / 2.0 * Math.log(k) <= target) return Double.POSITIVE_INFINITY;
        double lo = 0;
        double hi = 1;
        while (logBf(hi, n, k) < target) hi *= 2;
        for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; i++) {
            double mid = (lo + hi) / 2;
            if (logBf(mid, n, k) < target) lo = mid;
            else hi = mid;
        }
        return Math.sqrt(hi * nu);
    }

    /** log BF as a function of u = t²/ν. */
    private static double logBf(double u, int n, double k) {
        return -0.5 * Math.log(k) + n / 2.0 * (Math.log1p(u) - Math.log1p(u / k));
    }
}

package dev.baton.alerts;

import java.util.Arrays;
import java.util.Optional;
import org.apache.commons.statistics.descriptive.Mean;
import org.apache.commons.statistics.descriptive.Quantile;
import org.apache.commons.statistics.descriptive.StandardDeviation;
import org.apache.commons.statistics.distribution.LogNormalDistribution;
import org.apache.commons.statistics.distribution.NormalDistribution;
import org.apache.commons.statistics.distribution.TDistribution;

/**
 * A threshold's statistical model: how a baseline and the threshold's boundaries give a metric's
 * limits (docs/alerts.md has each formula and a worked example). The distributions and quantiles
 * are Apache Commons Statistics' (docs/decisions/0024-alerts-statistics.md). A boundary is
 * one-sided: a confidence level {@code c} puts the limit where a new sample from the baseline's
 * distribution falls beyond it with probability {@code 1 − c}.
 */
public enum Model {
    /** Fixed limits: the boundaries are the limits. */
    STATIC("static", Kind.FIXED, 0),
    /** mean × (1 − lower), mean × (1 + upper); boundaries are fractions (0.05 = 5 %). */
    PERCENTAGE("percentage", Kind.FRACTION, 1),
    /** mean ∓ z(c) × s, z the standard normal quantile. */
    Z_SCORE("z_score", Kind.CONFIDENCE, 2),
    /** mean ∓ t(c, n − 1) × s × √(1 + 1/n): Student's t prediction interval for one new sample. */
    T_TEST("t_test", Kind.CONFIDENCE, 2),
    /** exp(μ ∓ z(c) × σ) with μ, σ the mean and standard deviation of ln(x); every sample must be positive. */
    LOG_NORMAL("log_normal", Kind.CONFIDENCE, 2),
    /** Q1 − k × IQR, Q3 + k × IQR (Tukey's fences; quartiles by Hyndman–Fan method 7). */
    IQR("iqr", Kind.FACTOR, 2),
    /** median × (1 ∓ (Q3Δ + k × IQRΔ)), Δ the relative changes between consecutive samples. */
    DELTA_IQR("delta_iqr", Kind.FACTOR, 3),
    /** Bencher's {@code iqr}: median ∓ k × IQR (docs/decisions/0048-zero-spread-and-change-points.md). */
    BENCHER_IQR("bencher_iqr", Kind.FACTOR, 2),
    /** Bencher's {@code delta_iqr}: median × (1 ∓ k × IQRΔ). */
    BENCHER_DELTA_IQR("bencher_delta_iqr", Kind.FACTOR, 3),
    /** Bencher's {@code log_normal}: the upper limit of {@link #LOG_NORMAL}, the lower one mirrored around e^μ. */
    BENCHER_LOG_NORMAL("bencher_log_normal", Kind.CONFIDENCE, 2),
    /**
     * Change-point detection (E-divisive means with a t-test, {@link ChangePoints}); the
     * boundaries are the least relative change per side (0.05 = 5 %). The limits shown are the
     * newest segment's mean moved by that change; the alert comes from a new change point.
     */
    CHANGE_POINT("change_point", Kind.FRACTION, ChangePoints.MIN_SEGMENT * 2);

    /** What a boundary of the model means, and so which values it may take. */
    public enum Kind {
        FIXED,
        FRACTION,
        CONFIDENCE,
        FACTOR
    }

    // withCopy: the baseline is the caller's array, and the default sorts it in place.
    private static final Quantile QUANTILE =
            Quantile.withDefaults().withCopy(true).with(Quantile.EstimationMethod.HF7);

    private final String wireName;
    private final Kind kind;
    private final int minimumBaseline;

    Model(String wireName, Kind kind, int minimumBaseline) {
        this.wireName = wireName;
        this.kind = kind;
        this.minimumBaseline = minimumBaseline;
    }

    public String wireName() {
        return wireName;
    }

    public Kind kind() {
        return kind;
    }

    /** The fewest samples the model can compute limits from. */
    public int minimumBaseline() {
        return minimumBaseline;
    }

    public static Optional<Model> of(String name) {
        return Arrays.stream(values()).filter(m -> m.wireName.equals(name)).findFirst();
    }

    /**
     * The limits for a baseline given oldest first. {@code lower} and {@code upper} are the
     * threshold's boundaries (null: that side unset). Below {@code minSamples} (or the model's
     * own minimum) the limits are null: the threshold only records.
     */
    public Limits limits(double[] baseline, Double lower, Double upper, int minSamples) {
        int n = baseline.length;
        // Identical samples: their mean is the sample itself (summing and dividing them can round
        // past it, issue 44: five times 7.360385187934427 can average 7.360385187934428).
        boolean constant = n > 0 && Arrays.stream(baseline).allMatch(x -> x == baseline[0]);
        Double mean = n == 0 ? null : constant ? baseline[0] : Mean.of(baseline).getAsDouble();
        Double sd =
                n < 2 ? null : constant ? 0.0 : StandardDeviation.of(baseline).getAsDouble();
        if (this == STATIC) return new Limits(lower, upper, n, mean, sd);
        if (n < Math.max(minSamples, minimumBaseline)) return new Limits(null, null, n, mean, sd);
        // A baseline with no spread gives a statistical model nothing to scale a limit by: it
        // records and never alerts, as Bencher does (docs/alerts.md, "Zero-spread baselines").
        // A percentage is a fraction of the mean, which is exact here, so it keeps its limits.
        if (constant && kind != Kind.FRACTION) return new Limits(null, null, n, mean, sd);
        return switch (this) {
            case PERCENTAGE ->
                new Limits(
                        lower == null ? null : mean * (1 - lower),
                        upper == null ? null : mean * (1 + upper),
                        n,
                        mean,
                        sd);
            case Z_SCORE ->
                new Limits(
                        lower == null ? null : mean - z(lower) * sd,
                        upper == null ? null : mean + z(upper) * sd,
                        n,
                        mean,
                        sd);
            case T_TEST -> {
                TDistribution t = TDistribution.of(n - 1);
                double spread = sd * Math.sqrt(1 + 1.0 / n);
                yield new Limits(
                        lower == null ? null : mean - t.inverseCumulativeProbability(lower) * spread,
                        upper == null ? null : mean + t.inverseCumulativeProbability(upper) * spread,
                        n,
                        mean,
                        sd);
            }
            case LOG_NORMAL -> logNormal(baseline, lower, upper, mean, sd);
            case IQR -> {
                double[] q = QUANTILE.evaluate(baseline, 0.25, 0.75);
                double iqr = q[1] - q[0];
                yield new Limits(
                        lower == null ? null : q[0] - lower * iqr,
                        upper == null ? null : q[1] + upper * iqr,
                        n,
                        mean,
                        sd);
            }
            case DELTA_IQR -> deltaIqr(baseline, lower, upper, mean, sd);
            case BENCHER_IQR -> {
                double[] q = QUANTILE.evaluate(baseline, 0.25, 0.5, 0.75);
                double iqr = q[2] - q[0];
                yield new Limits(
                        lower == null ? null : q[1] - lower * iqr,
                        upper == null ? null : q[1] + upper * iqr,
                        n,
                        mean,
                        sd);
            }
            case BENCHER_DELTA_IQR -> bencherDeltaIqr(baseline, lower, upper, mean, sd);
            case BENCHER_LOG_NORMAL -> bencherLogNormal(baseline, lower, upper, mean, sd);
            case CHANGE_POINT -> ChangePoints.limits(baseline, lower, upper, mean, sd);
            case STATIC -> throw new AssertionError("handled above");
        };
    }

    private static double z(double confidence) {
        return NormalDistribution.of(0, 1).inverseCumulativeProbability(confidence);
    }

    private static Limits logNormal(double[] baseline, Double lower, Double upper, Double mean, Double sd) {
        int n = baseline.length;
        double[] logs = new double[n];
        for (int i = 0; i < n; i++) {
            // The logarithm of zero or a negative sample does not exist: no limits, the threshold records.
            if (!(baseline[i] > 0)) return new Limits(null, null, n, mean, sd);
            logs[i] = Math.log(baseline[i]);
        }
        double sigma = StandardDeviation.of(logs).getAsDouble();
        double mu = Mean.of(logs).getAsDouble();
        // No spread of the logarithms (samples a rounding apart): no limits, as for identical samples.
        if (sigma == 0) return new Limits(null, null, n, mean, sd);
        LogNormalDistribution d = LogNormalDistribution.of(mu, sigma);
        return new Limits(
                lower == null ? null : d.inverseCumulativeProbability(1 - lower),
                upper == null ? null : d.inverseCumulativeProbability(upper),
                n,
                mean,
                sd);
    }

    private static Limits deltaIqr(double[] baseline, Double lower, Double upper, Double mean, Double sd) {
        int n = baseline.length;
        double[] deltas = relativeChanges(baseline);
        // A change from zero has no relative size: no limits, the threshold records.
        if (deltas == null) return new Limits(null, null, n, mean, sd);
        double[] q = QUANTILE.evaluate(deltas, 0.25, 0.75);
        double median = QUANTILE.evaluate(baseline, 0.5);
        double iqr = q[1] - q[0];
        return new Limits(
                lower == null ? null : median * (1 - (q[1] + lower * iqr)),
                upper == null ? null : median * (1 + (q[1] + upper * iqr)),
                n,
                mean,
                sd);
    }

    /** The relative changes between consecutive samples, oldest first; null when one starts from zero. */
    private static double[] relativeChanges(double[] baseline) {
        double[] deltas = new double[baseline.length - 1];
        for (int i = 1; i < baseline.length; i++) {
            if (baseline[i - 1] == 0) return null;
            deltas[i - 1] = Math.abs(baseline[i] - baseline[i - 1]) / Math.abs(baseline[i - 1]);
        }
        return deltas;
    }

    private static Limits bencherDeltaIqr(double[] baseline, Double lower, Double upper, Double mean, Double sd) {
        int n = baseline.length;
        double[] deltas = relativeChanges(baseline);
        // A change from zero has no relative size: no limits, the threshold records.
        if (deltas == null) return new Limits(null, null, n, mean, sd);
        double[] q = QUANTILE.evaluate(deltas, 0.25, 0.75);
        double median = QUANTILE.evaluate(baseline, 0.5);
        double iqr = q[1] - q[0];
        return new Limits(
                lower == null ? null : median * (1 - lower * iqr),
                upper == null ? null : median * (1 + upper * iqr),
                n,
                mean,
                sd);
    }

    private static Limits bencherLogNormal(double[] baseline, Double lower, Double upper, Double mean, Double sd) {
        int n = baseline.length;
        double[] logs = new double[n];
        for (int i = 0; i < n; i++) {
            if (!(baseline[i] > 0)) return new Limits(null, null, n, mean, sd);
            logs[i] = Math.log(baseline[i]);
        }
        double sigma = StandardDeviation.of(logs).getAsDouble();
        if (sigma == 0) return new Limits(null, null, n, mean, sd);
        double mu = Mean.of(logs).getAsDouble();
        LogNormalDistribution d = LogNormalDistribution.of(mu, sigma);
        // Bencher takes the upper quantile at the lower boundary's level and mirrors it around e^μ.
        return new Limits(
                lower == null ? null : 2 * Math.exp(mu) - d.inverseCumulativeProbability(lower),
                upper == null ? null : d.inverseCumulativeProbability(upper),
                n,
                mean,
                sd);
    }
}

package dev.baton.core.paired;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/**
 * The sequential design's median interval (decision 0066): its boundary against exact binomial
 * sums, its error rate under optional stopping by simulation with fixed seeds (heavy tails and
 * ties included, where a mean's interval has no guarantee), and its power where a neighbour's
 * bursts stretch a third of the timings.
 */
class MedianConfidenceSequenceTest {
    private static final int RUNS = 2000;
    private static final int MAX_PAIRS = 200;

    @Test
    void theBoundaryMatchesExactBinomialSums() {
        // c(n): the least count with 2^(n+1)·P(Bin(n+1, ½) ≤ c) / ((n+1)·C(n, c)) ≥ 40, from exact
        // integer sums (Python's math.comb), α = 0.05.
        assertThat(MedianConfidenceSequence.criticalCount(7, 0.05)).isEqualTo(8); // unbounded
        assertThat(MedianConfidenceSequence.criticalCount(8, 0.05)).isEqualTo(8);
        assertThat(MedianConfidenceSequence.criticalCount(20, 0.05)).isEqualTo(17);
        assertThat(MedianConfidenceSequence.criticalCount(100, 0.05)).isEqualTo(66);
        assertThat(MedianConfidenceSequence.criticalCount(200, 0.05)).isEqualTo(124);
    }

    @Test
    void unboundedBeforeTheEighthPairThenOrderStatistics() {
        assertThat(MedianConfidenceSequence.of(new double[] {1, 2, 3, 4, 5, 6, 7}, 0.05)
                        .bounded())
                .isFalse();
        MedianConfidenceSequence.Interval eight =
                MedianConfidenceSequence.of(new double[] {8, 1, 7, 2, 6, 3, 5, 4}, 0.05);
        assertThat(eight.bounded()).isTrue();
        assertThat(eight.lower()).isEqualTo(1);
        assertThat(eight.upper()).isEqualTo(8);
        assertThat(eight.median()).isEqualTo(4.5);
    }

    @Test
    void falseStopsStayBelowAlphaUnderContinuousPeekingWhateverTheTails() {
        SplittableRandom random = new SplittableRandom(45);
        // Gaussian, Cauchy (no mean at all) and a three-valued difference full of ties at zero.
        assertThat(falseStopRate(() -> random.nextGaussian() * 3)).isLessThanOrEqualTo(0.05);
        assertThat(falseStopRate(() -> Math.tan(Math.PI * (random.nextDouble() - 0.5))))
                .isLessThanOrEqualTo(0.05);
        assertThat(falseStopRate(() -> random.nextInt(3) - 1)).isLessThanOrEqualTo(0.05);
    }

    private static double falseStopRate(DoubleSupplier difference) {
        int falseStops = 0;
        for (int run = 0; run < RUNS; run++) {
            double[] d = new double[MAX_PAIRS];
            for (int n = 1; n <= MAX_PAIRS; n++) {
                d[n - 1] = difference.getAsDouble();
                if (n < 8) continue;
                MedianConfidenceSequence.Interval i = MedianConfidenceSequence.of(java.util.Arrays.copyOf(d, n), 0.05);
                if (i.lower() > 0 || i.upper() < 0) {
                    falseStops++;
                    break;
                }
            }
        }
        return falseStops / (double) RUNS;
    }

    @Test
    void findsAFivePercentSlowdownThroughBurstsAndCoversIt() {
        // Each side ~100 ± 1; a third of the timings stretched by a burst of 20–300 %: a mean's
        // interval is as wide as the bursts, the median's is not.
        SplittableRandom random = new SplittableRandom(7);
        int found = 0;
        int covered = 0;
        int runs = 300;
        for (int run = 0; run < runs; run++) {
            double[] d = new double[MAX_PAIRS];
            for (int n = 1; n <= MAX_PAIRS; n++) {
                double a = timing(random, 100);
                double b = timing(random, 105);
                d[n - 1] = b - a;
                if (n < 8) continue;
                MedianConfidenceSequence.Interval i = MedianConfidenceSequence.of(java.util.Arrays.copyOf(d, n), 0.05);
                if (i.lower() > 0 || i.upper() < 0) {
                    if (i.lower() > 0) found++;
                    if (i.lower() <= 5 && 5 <= i.upper()) covered++;
                    break;
                }
            }
        }
        assertThat(found / (double) runs).as("power").isGreaterThanOrEqualTo(0.95);
        assertThat(covered / (double) Math.max(1, found))
                .as("the stop's interval covers the true median difference")
                .isGreaterThanOrEqualTo(0.95);
    }

    private static double timing(SplittableRandom random, double base) {
        double t = base + random.nextGaussian();
        return random.nextDouble() < 1 / 3.0 ? t * (1.2 + 2.8 * random.nextDouble()) : t;
    }
}

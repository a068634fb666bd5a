package dev.baton.core.paired;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The sequential design's error rate under optional stopping, by simulation with a fixed seed
 * (decision 0050): a run that looks after every pair and stops at the first interval that
 * excludes zero must call a difference where there is none in at most α of runs. The same peeking
 * with the fixed-n t interval is shown to fail, so the test would catch a rule that is not
 * always valid.
 */
class ConfidenceSequenceTest {
    private static final int RUNS = 2000;
    private static final int MAX_PAIRS = 200;

    @Test
    void noWidthBeforeEnoughPairs() {
        assertThat(ConfidenceSequence.halfWidth(1, 1, 0.05)).isInfinite();
        assertThat(ConfidenceSequence.halfWidth(4, 1, 0.05)).isInfinite();
        assertThat(ConfidenceSequence.halfWidth(5, 1, 0.05)).isFinite();
    }

    @Test
    void widerThanTheFixedIntervalAndShrinking() {
        // At 30 pairs the fixed 95 % t interval is ±2.045·s/√n; the always-valid one pays for
        // looking at every pair, and it narrows as pairs come.
        double at30 = ConfidenceSequence.criticalT(30, 0.05);
        assertThat(at30).isGreaterThan(2.045).isLessThan(4);
        assertThat(ConfidenceSequence.halfWidth(100, 1, 0.05)).isLessThan(ConfidenceSequence.halfWidth(30, 1, 0.05));
    }

    @Test
    void falseStopsStayBelowAlphaUnderContinuousPeeking() {
        SplittableRandom random = new SplittableRandom(45);
        int falseStops = 0;
        int naiveFalseStops = 0;
        for (int run = 0; run < RUNS; run++) {
            double sum = 0;
            double sumSq = 0;
            boolean stopped = false;
            boolean naiveStopped = false;
            for (int n = 1; n <= MAX_PAIRS && !(stopped && naiveStopped); n++) {
                double d = gaussian(random) * 3.0; // any scale: the rule is scale-free
                sum += d;
                sumSq += d * d;
                if (n < 2) continue;
                double mean = sum / n;
                double sd = Math.sqrt(Math.max(0, (sumSq - n * mean * mean) / (n - 1)));
                if (!stopped && Math.abs(mean) > ConfidenceSequence.halfWidth(n, sd, 0.05)) stopped = true;
                // 1.96 is below every t quantile: a lenient stand-in for peeking at the t-test.
                if (!naiveStopped && n >= 5 && Math.abs(mean) > 1.96 * sd / Math.sqrt(n)) naiveStopped = true;
            }
            if (stopped) falseStops++;
            if (naiveStopped) naiveFalseStops++;
        }
        assertThat(falseStops / (double) RUNS).as("false stops, always-valid").isLessThanOrEqualTo(0.05);
        assertThat(naiveFalseStops / (double) RUNS)
                .as("false stops, fixed-n interval checked at every pair")
                .isGreaterThan(0.2);
    }

    @Test
    void findsARealDifferenceAndCoversIt() {
        SplittableRandom random = new SplittableRandom(7);
        int found = 0;
        int covered = 0;
        double effect = 1.0; // one standard deviation of the differences
        for (int run = 0; run < 500; run++) {
            double sum = 0;
            double sumSq = 0;
            for (int n = 1; n <= MAX_PAIRS; n++) {
                double d = effect + gaussian(random);
                sum += d;
                sumSq += d * d;
                if (n < 2) continue;
                double mean = sum / n;
                double sd = Math.sqrt(Math.max(0, (sumSq - n * mean * mean) / (n - 1)));
                double half = ConfidenceSequence.halfWidth(n, sd, 0.05);
                if (Math.abs(mean) > half) {
                    found++;
                    if (Math.abs(mean - effect) <= half) covered++;
                    break;
                }
            }
        }
        assertThat(found).isEqualTo(500);
        assertThat(covered / 500.0).isGreaterThanOrEqualTo(0.95);
    }

    private static double gaussian(SplittableRandom r) {
        return r.nextGaussian();
    }
}

package dev.baton.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/**
 * How well {@code t_test} and {@code z_score} at their defaults (upper boundary 0.99, a window of
 * 64, the models' least minimum) tell a change from noise, on synthetic latency series with a
 * fixed seed (so the figures are the same on every run; docs/benchmarks/alerts.md records them). The
 * noise is normal with a standard deviation of 2 % of the mean, as a steady benchmark machine
 * gives; each trial is a fresh series judged the way Baton judges a report: the new value
 * against the 64 values before it.
 */
class DetectionQualityTest {
    static final int WINDOW = ThresholdRules.DEFAULT_MAX_SAMPLES;
    static final double CONFIDENCE = ThresholdRules.DEFAULT_CONFIDENCE;
    static final double MEAN = 100;
    static final double SD = 2;
    static final int TRIALS = 20_000;

    /** Share of trials in which {@code model} alerts on the value after a baseline drawn from {@code before}. */
    static double alertRate(Model model, long seed, DoubleSupplierFactory before, DoubleSupplierFactory next) {
        SplittableRandom random = new SplittableRandom(seed);
        int alerts = 0;
        double[] baseline = new double[WINDOW];
        for (int t = 0; t < TRIALS; t++) {
            DoubleSupplier history = before.of(random);
            for (int i = 0; i < WINDOW; i++) baseline[i] = history.getAsDouble();
            Limits limits = model.limits(baseline, null, CONFIDENCE, model.minimumBaseline());
            if (limits.breached(next.of(random).getAsDouble()) != null) alerts++;
        }
        return alerts / (double) TRIALS;
    }

    /** Share of trials whose first alert comes within {@code runs} runs of a step of {@code step} (a fraction of the mean). */
    static double caughtWithin(Model model, long seed, double step, int runs) {
        SplittableRandom random = new SplittableRandom(seed);
        int caught = 0;
        for (int t = 0; t < TRIALS / 4; t++) {
            double[] series = new double[WINDOW + runs];
            for (int i = 0; i < series.length; i++)
                series[i] = (i < WINDOW ? MEAN : MEAN * (1 + step)) + SD * random.nextGaussian();
            for (int r = 0; r < runs; r++) {
                double[] baseline = java.util.Arrays.copyOfRange(series, r, WINDOW + r);
                if (model.limits(baseline, null, CONFIDENCE, model.minimumBaseline())
                                .breached(series[WINDOW + r])
                        != null) {
                    caught++;
                    break;
                }
            }
        }
        return caught / (double) (TRIALS / 4);
    }

    /** Runs until the first alert on a slow drift of {@code perRun} (a fraction of the mean per run), averaged; 0 alerts counts as {@code cap}. */
    static double runsUntilDriftCaught(Model model, long seed, double perRun, int cap) {
        SplittableRandom random = new SplittableRandom(seed);
        long total = 0;
        int trials = TRIALS / 20;
        for (int t = 0; t < trials; t++) {
            double[] series = new double[WINDOW + cap];
            for (int i = 0; i < series.length; i++) {
                series[i] = MEAN * (1 + (i < WINDOW ? 0 : perRun * (i - WINDOW + 1))) + SD * random.nextGaussian();
            }
            int at = cap;
            for (int r = 0; r < cap; r++) {
                double[] baseline = java.util.Arrays.copyOfRange(series, r, WINDOW + r);
                if (model.limits(baseline, null, CONFIDENCE, model.minimumBaseline())
                                .breached(series[WINDOW + r])
                        != null) {
                    at = r + 1;
                    break;
                }
            }
            total += at;
        }
        return total / (double) trials;
    }

    interface DoubleSupplierFactory {
        DoubleSupplier of(SplittableRandom random);
    }

    static final DoubleSupplierFactory NOISE = r -> () -> MEAN + SD * r.nextGaussian();
    /** Two modes 5 % apart (a benchmark that lands on one of two code layouts), each with the same noise. */
    static final DoubleSupplierFactory BIMODAL =
            r -> () -> (r.nextBoolean() ? MEAN : MEAN * 1.05) + SD * r.nextGaussian();

    @Test
    void onStationaryNoiseTheFalseAlertRateIsTheConfiguredLevel() {
        double t = alertRate(Model.T_TEST, 1, NOISE, NOISE);
        double z = alertRate(Model.Z_SCORE, 1, NOISE, NOISE);
        report("stationary noise, false alerts", t, z);
        // 1 − 0.99 = 1 %; the estimate's standard error over 20,000 trials is 0.07 %.
        assertThat(t).isBetween(0.008, 0.012);
        // z_score ignores that the mean and deviation are estimated from 64 samples: a little above 1 %.
        assertThat(z).isBetween(0.008, 0.016);
    }

    @Test
    void aTwentyPercentStepIsCaughtAtOnceAndAFivePercentStepMostly() {
        double t20 = caughtWithin(Model.T_TEST, 2, 0.20, 1);
        double z20 = caughtWithin(Model.Z_SCORE, 2, 0.20, 1);
        double t5 = caughtWithin(Model.T_TEST, 3, 0.05, 1);
        double z5 = caughtWithin(Model.Z_SCORE, 3, 0.05, 1);
        double t5in5 = caughtWithin(Model.T_TEST, 4, 0.05, 5);
        double z5in5 = caughtWithin(Model.Z_SCORE, 4, 0.05, 5);
        report("20 % step, caught by the first run after it", t20, z20);
        report("5 % step, caught by the first run after it", t5, z5);
        report("5 % step, caught within 5 runs", t5in5, z5in5);
        assertThat(t20).isEqualTo(1.0);
        assertThat(z20).isEqualTo(1.0);
        // A 5 % step is 2.5 noise deviations: one run alone is beyond the 99 % limit a little more than half the time.
        assertThat(t5).isBetween(0.5, 0.7);
        assertThat(t5in5).isGreaterThan(0.9);
    }

    @Test
    void aSlowDriftIsCaughtOnlyOnceItHasGoneFar() {
        // 0.1 % a run: the baseline moves with it, so the limit follows the drift for a while.
        double t = runsUntilDriftCaught(Model.T_TEST, 5, 0.001, 400);
        double z = runsUntilDriftCaught(Model.Z_SCORE, 5, 0.001, 400);
        System.out.printf(
                Locale.ROOT,
                "%-48s t_test %6.1f runs   z_score %6.1f runs%n",
                "drift 0.1 %/run, runs until the first alert",
                t,
                z);
        assertThat(t).isLessThan(400);
    }

    @Test
    void onBimodalNoiseTheNormalModelsAlertLessOftenThanConfigured() {
        double t = alertRate(Model.T_TEST, 6, BIMODAL, BIMODAL);
        double z = alertRate(Model.Z_SCORE, 6, BIMODAL, BIMODAL);
        report("bimodal noise (modes 5 % apart), false alerts", t, z);
        // Two modes are not a normal distribution: the tails are lighter, so fewer alerts than 1 %.
        assertThat(t).isLessThan(0.02);
    }

    static void report(String what, double t, double z) {
        System.out.printf(Locale.ROOT, "%-48s t_test %6.2f %%   z_score %6.2f %%%n", what, 100 * t, 100 * z);
    }
}

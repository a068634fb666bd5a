package dev.baton.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * Each model's limits on a small baseline, against values worked out by hand (the arithmetic is
 * in the comments; the quantiles come from published tables), not from the library under test.
 *
 * <p>The baseline, oldest first: 10, 12, 11, 13, 14. n = 5, mean = 60 / 5 = 12. Deviations
 * −2, 0, −1, 1, 2; squares 4, 0, 1, 1, 4 sum to 10; sample variance s² = 10 / 4 = 2.5;
 * s = √2.5 = 1.5811388.
 */
class ModelTest {
    static final double[] BASELINE = {10, 12, 11, 13, 14};
    static final double EPS = 1e-5;

    @Test
    void staticLimitsAreTheBoundariesWhateverTheBaseline() {
        Limits l = Model.STATIC.limits(new double[0], 5.0, 20.0, 0);
        assertThat(l.lower()).isEqualTo(5.0);
        assertThat(l.upper()).isEqualTo(20.0);
        assertThat(l.baselineSize()).isZero();
        assertThat(l.breached(21)).isEqualTo("upper");
        assertThat(l.breached(4.9)).isEqualTo("lower");
        assertThat(l.breached(20)).isNull();
    }

    @Test
    void percentageIsTheMeanPlusOrMinusAFraction() {
        // 12 × (1 − 0.05) = 11.4; 12 × (1 + 0.10) = 13.2
        Limits l = Model.PERCENTAGE.limits(BASELINE, 0.05, 0.10, 1);
        assertThat(l.lower()).isCloseTo(11.4, within(EPS));
        assertThat(l.upper()).isCloseTo(13.2, within(EPS));
        assertThat(l.mean()).isCloseTo(12, within(EPS));
        assertThat(l.stddev()).isCloseTo(1.5811388, within(EPS));
    }

    @Test
    void zScoreUsesTheNormalQuantile() {
        // z(0.975) = 1.959964 (standard normal table). 1.959964 × 1.5811388 = 3.098975:
        // upper = 15.098975, lower = 8.901025.
        Limits l = Model.Z_SCORE.limits(BASELINE, 0.975, 0.975, 2);
        assertThat(l.upper()).isCloseTo(15.098975, within(EPS));
        assertThat(l.lower()).isCloseTo(8.901025, within(EPS));
    }

    @Test
    void tTestIsStudentsPredictionIntervalForOneNewSample() {
        // t(0.95, 4 degrees of freedom) = 2.131847 (Student's t table). s × √(1 + 1/5) =
        // √(2.5 × 1.2) = √3 = 1.7320508; 2.131847 × 1.7320508 = 3.692466:
        // upper = 15.692466, lower = 8.307534.
        Limits l = Model.T_TEST.limits(BASELINE, 0.95, 0.95, 2);
        assertThat(l.upper()).isCloseTo(15.692466, within(EPS));
        assertThat(l.lower()).isCloseTo(8.307534, within(EPS));
        assertThat(l.breached(15.7)).isEqualTo("upper");
        assertThat(l.breached(15.6)).isNull();
    }

    @Test
    void logNormalFitsTheLogarithms() {
        // Baseline e¹, e², e³: logs 1, 2, 3; μ = 2, σ = 1 (sample). upper = exp(2 + 1.959964) =
        // exp(3.959964) = 52.455437; lower = exp(2 − 1.959964) = exp(0.040036) = 1.040848.
        Limits l = Model.LOG_NORMAL.limits(
                new double[] {Math.E, Math.E * Math.E, Math.E * Math.E * Math.E}, 0.975, 0.975, 2);
        assertThat(l.upper()).isCloseTo(52.455437, within(EPS));
        assertThat(l.lower()).isCloseTo(1.040848, within(EPS));
    }

    @Test
    void logNormalOnlyRecordsWhenASampleIsNotPositive() {
        Limits l = Model.LOG_NORMAL.limits(new double[] {0, 1, 2}, null, 0.99, 2);
        assertThat(l.upper()).isNull();
        assertThat(l.baselineSize()).isEqualTo(3);
    }

    @Test
    void iqrIsTukeysFences() {
        // Sorted 10, 11, 12, 13, 14; method 7 puts quantile p at index (n − 1)p: Q1 = x[1] = 11,
        // Q3 = x[3] = 13, IQR = 2. lower = 11 − 1.5 × 2 = 8; upper = 13 + 1.5 × 2 = 16.
        Limits l = Model.IQR.limits(BASELINE, 1.5, 1.5, 2);
        assertThat(l.lower()).isCloseTo(8, within(EPS));
        assertThat(l.upper()).isCloseTo(16, within(EPS));
    }

    @Test
    void deltaIqrBoundsTheRelativeChangeFromTheMedian() {
        // Relative changes oldest first: 2/10 = 0.2, 1/12 = 0.083333, 2/11 = 0.181818, 1/13 = 0.076923.
        // Sorted 0.076923, 0.083333, 0.181818, 0.2; method 7, n = 4: Q1 at index 0.75 =
        // 0.076923 + 0.75 × 0.006410 = 0.081731; Q3 at index 2.25 = 0.181818 + 0.25 × 0.018182 =
        // 0.186364; IQR = 0.104633. Allowed change 0.186364 + 1.5 × 0.104633 = 0.343313.
        // Median 12: upper = 12 × 1.343313 = 16.119755; lower = 12 × 0.656687 = 7.880245.
        Limits l = Model.DELTA_IQR.limits(BASELINE, 1.5, 1.5, 3);
        assertThat(l.upper()).isCloseTo(16.119755, within(EPS));
        assertThat(l.lower()).isCloseTo(7.880245, within(EPS));
    }

    @Test
    void belowTheMinimumSampleCountAThresholdOnlyRecords() {
        Limits l = Model.T_TEST.limits(BASELINE, null, 0.95, 6);
        assertThat(l.upper()).isNull();
        assertThat(l.lower()).isNull();
        assertThat(l.baselineSize()).isEqualTo(5);
        assertThat(l.mean()).isCloseTo(12, within(EPS));
        assertThat(l.breached(1000)).isNull();
    }

    @Test
    void anUnsetSideHasNoLimit() {
        Limits l = Model.Z_SCORE.limits(BASELINE, null, 0.975, 2);
        assertThat(l.lower()).isNull();
        assertThat(l.breached(-1000)).isNull();
    }

    // Issue 44: TCPD's `bank` series holds runs of one value, 7.360385187934427; five of them
    // summed and divided give 7.360385187934428, so the limits collapsed on a mean above every
    // sample and the very same value raised an alert. Four 0.1 values did it too.
    static final double BANK = 7.360385187934427;
    static final Model[] SPREAD_MODELS = {
        Model.Z_SCORE,
        Model.T_TEST,
        Model.LOG_NORMAL,
        Model.IQR,
        Model.DELTA_IQR,
        Model.BENCHER_IQR,
        Model.BENCHER_DELTA_IQR,
        Model.BENCHER_LOG_NORMAL
    };

    @Test
    void identicalSamplesGiveAStatisticalModelNoLimitsSoNothingAlerts() {
        for (double[] same : new double[][] {{BANK, BANK, BANK, BANK, BANK}, {0.1, 0.1, 0.1, 0.1}}) {
            for (Model m : SPREAD_MODELS) {
                Limits l = m.limits(same, boundary(m), boundary(m), 2);
                assertThat(l.lower()).as(m.wireName()).isNull();
                assertThat(l.upper()).as(m.wireName()).isNull();
                assertThat(l.mean()).as(m.wireName()).isEqualTo(same[0]);
                assertThat(l.stddev()).as(m.wireName()).isEqualTo(0.0);
                assertThat(l.baselineSize()).isEqualTo(same.length);
                assertThat(l.breached(same[0])).as(m.wireName()).isNull();
                // + 0.001 %: the baseline gives no scale to call that large.
                assertThat(l.breached(same[0] * 1.00001)).as(m.wireName()).isNull();
                assertThat(l.breached(same[0] * 0.99999)).as(m.wireName()).isNull();
            }
        }
    }

    private static double boundary(Model m) {
        return m.kind() == Model.Kind.FACTOR ? 1.5 : 0.99;
    }

    @Test
    void aPercentageOfIdenticalSamplesIsAFractionOfTheSampleItself() {
        Limits exact = Model.PERCENTAGE.limits(new double[] {BANK, BANK, BANK, BANK, BANK}, 0.0, 0.0, 1);
        assertThat(exact.lower()).isEqualTo(BANK);
        assertThat(exact.upper()).isEqualTo(BANK);
        assertThat(exact.breached(BANK)).isNull();
        Limits tenth = Model.PERCENTAGE.limits(new double[] {0.1, 0.1, 0.1, 0.1}, 0.0, 0.0, 1);
        assertThat(tenth.breached(0.1)).isNull();
        // The default 10 % lets +0.001 % pass.
        Limits ten = Model.PERCENTAGE.limits(new double[] {BANK, BANK, BANK, BANK, BANK}, null, 0.10, 1);
        assertThat(ten.breached(BANK * 1.00001)).isNull();
    }

    @Test
    void bencherIqrIsTheMedianPlusOrMinusKTimesTheIqr() {
        // Median 12, Q1 11, Q3 13 (method 7, as iqrIsTukeysFences): 12 ∓ 1.5 × 2 = 9 and 15.
        Limits l = Model.BENCHER_IQR.limits(BASELINE, 1.5, 1.5, 2);
        assertThat(l.lower()).isCloseTo(9, within(EPS));
        assertThat(l.upper()).isCloseTo(15, within(EPS));
    }

    @Test
    void bencherDeltaIqrIsTheMedianTimesOnePlusOrMinusKTimesTheChangesIqr() {
        // The relative changes' Q1 0.0817308 and Q3 0.1863636 (deltaIqrBoundsTheRelativeChangeFromTheMedian):
        // IQRΔ = 0.1046329, 1.5 × IQRΔ = 0.1569493. 12 × 1.1569493 = 13.883392; 12 × 0.8430507 = 10.116608.
        Limits l = Model.BENCHER_DELTA_IQR.limits(BASELINE, 1.5, 1.5, 3);
        assertThat(l.upper()).isCloseTo(13.883392, within(EPS));
        assertThat(l.lower()).isCloseTo(10.116608, within(EPS));
    }

    @Test
    void bencherLogNormalMirrorsTheUpperQuantileAroundEToTheMu() {
        // As logNormalFitsTheLogarithms: μ = 2, σ = 1, the 0.975 quantile exp(3.959964) = 52.455437.
        // Lower: 2 × e² − 52.455437 = 14.778112 − 52.455437 = −37.677325.
        Limits l = Model.BENCHER_LOG_NORMAL.limits(
                new double[] {Math.E, Math.E * Math.E, Math.E * Math.E * Math.E}, 0.975, 0.975, 2);
        assertThat(l.upper()).isCloseTo(52.455437, within(EPS));
        assertThat(l.lower()).isCloseTo(-37.677325, within(EPS));
    }
}

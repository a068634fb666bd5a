package dev.baton.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.JsonAdapter;
import dev.baton.protocol.model.PairedConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The paired verdict (issue 45) on the worked example of docs/paired-runs.md: baseline 100, 102,
 * 98, 101, 99 ns, candidate 105, 106, 104, 107, 103 ns. The differences 5, 4, 6, 6, 4 have mean 5
 * and s = 1; t(0.975, 4) = 2.776445 (a t table), so the interval is 5 ± 2.776445/√5 = 5 ± 1.241664.
 */
class PairedVerdictTest {
    private static final double[] A = {100, 102, 98, 101, 99};
    private static final double[] B = {105, 106, 104, 107, 103};

    /** The iterations as a runner reports them: each pair in the order the seed drew. */
    private static List<IterationResults> iterations(PairedConfig config, String measure, double[] a, double[] b) {
        List<IterationResults> out = new ArrayList<>();
        for (int p = 0; p < a.length; p++) {
            double first = config.baselineFirst(p) ? a[p] : b[p];
            double second = config.baselineFirst(p) ? b[p] : a[p];
            for (double v : new double[] {first, second})
                out.add(IterationResults.parse(
                        out.size(), new JsonAdapter(), "{\"sort\":{\"" + measure + "\":{\"value\":" + v + "}}}"));
        }
        return out;
    }

    private static PairedConfig fixed(long seed) {
        return new PairedConfig(List.of("old"), 5, seed, null, null, null, "json", null);
    }

    @Test
    void theWorkedExampleIsSlowerByFivePercent() {
        PairedConfig config = fixed(45);
        PairedVerdict v = PairedVerdict.of(config, iterations(config, "latency", A, B));

        assertThat(v.design()).isEqualTo("fixed");
        assertThat(v.interval()).isEqualTo("paired_t");
        assertThat(v.pairs()).isEqualTo(5);
        assertThat(v.regression()).isTrue();
        PairedVerdict.Verdict sort = v.verdicts().getFirst();
        assertThat(sort.baselineMean()).isEqualTo(100);
        assertThat(sort.candidateMean()).isEqualTo(105);
        assertThat(sort.difference()).isEqualTo(5);
        assertThat(sort.relative()).isEqualTo(0.05);
        assertThat(sort.lower()).isCloseTo(3.758336, within(1e-5));
        assertThat(sort.upper()).isCloseTo(6.241664, within(1e-5));
        assertThat(sort.verdict()).isEqualTo("slower");
        // Every pair kept with its sides, whatever order it ran in.
        assertThat(v.runs()).hasSize(5);
        for (int p = 0; p < 5; p++) {
            assertThat(v.runs()
                            .get(p)
                            .baseline()
                            .benchmarks()
                            .get("sort")
                            .get("latency")
                            .value())
                    .isEqualTo(A[p]);
            assertThat(v.runs().get(p).order()).isEqualTo(config.baselineFirst(p) ? "AB" : "BA");
        }
    }

    @Test
    void aHigherRateIsFasterAndAnIntervalOverZeroIsNoChange() {
        PairedConfig config = fixed(7);
        assertThat(PairedVerdict.of(config, iterations(config, "throughput", A, B))
                        .verdicts()
                        .getFirst()
                        .verdict())
                .isEqualTo("faster");
        double[] mixed = {101, 101, 99, 102, 97}; // differences 1, -1, 1, 1, -2: mean 0
        PairedVerdict none = PairedVerdict.of(config, iterations(config, "latency", A, mixed));
        assertThat(none.verdicts().getFirst().verdict()).isEqualTo("no_change");
        assertThat(none.verdicts().getFirst().lower()).isNegative();
        assertThat(none.regression()).isFalse();
    }

    @Test
    void aSequentialRunJudgesTheMedianWithItsAlwaysValidInterval() {
        PairedConfig sequential = new PairedConfig(List.of("old"), 200, 45, true, 600, 0.01, "json", null);
        // The worked example and three more pairs: differences 5, 4, 6, 6, 4, 5, 7, 3.
        double[] a = {100, 102, 98, 101, 99, 100, 100, 101};
        double[] b = {105, 106, 104, 107, 103, 105, 107, 104};
        PairedVerdict v = PairedVerdict.of(sequential, iterations(sequential, "latency", a, b));
        assertThat(v.interval()).isEqualTo("median_confidence_sequence");
        assertThat(v.statistic()).isEqualTo("median");
        assertThat(v.stopped()).isEqualTo("decided");
        PairedVerdict.Verdict sort = v.verdicts().getFirst();
        // At eight pairs the interval needs all eight on one side of a value: it is the smallest
        // to the largest difference.
        assertThat(sort.difference()).isEqualTo(5);
        assertThat(sort.lower()).isEqualTo(3);
        assertThat(sort.upper()).isEqualTo(7);
        assertThat(sort.verdict()).isEqualTo("slower");
        // Seven pairs leave it unbounded: not decided, so the budget (or the most pairs) ended it.
        PairedVerdict early = PairedVerdict.of(
                sequential,
                iterations(sequential, "latency", java.util.Arrays.copyOf(a, 7), java.util.Arrays.copyOf(b, 7)));
        assertThat(early.verdicts().getFirst().lower()).isNull();
        assertThat(early.verdicts().getFirst().verdict()).isEqualTo("no_change");
        assertThat(early.stopped()).isEqualTo("budget");
    }

    @Test
    void aBurstThatStretchesOneSideOnceDoesNotHideASlowdown() {
        // Twenty pairs 5 % slower, but in one of them a neighbour stretched the baseline from 100
        // to 600: the mean difference turns negative (−20), the median's interval stays above zero.
        PairedConfig sequential = new PairedConfig(List.of("old"), 200, 45, true, 600, 0.01, "json", null);
        double[] a = new double[20];
        double[] b = new double[20];
        for (int p = 0; p < 20; p++) {
            a[p] = 100 + (p % 3);
            b[p] = 105 + (p % 4);
        }
        a[11] = 600;
        PairedVerdict v = PairedVerdict.of(sequential, iterations(sequential, "latency", a, b));
        PairedVerdict.Verdict sort = v.verdicts().getFirst();
        assertThat(sort.lower()).isPositive();
        assertThat(sort.verdict()).isEqualTo("slower");
        PairedConfig fixed = new PairedConfig(List.of("old"), 20, 45, null, null, null, "json", null);
        assertThat(PairedVerdict.of(fixed, iterations(fixed, "latency", a, b))
                        .verdicts()
                        .getFirst()
                        .verdict())
                .as("the mean's t interval, for contrast")
                .isEqualTo("no_change");
    }

    @Test
    void theOrderIsAFunctionOfTheSeedAndTakesBothWays() {
        PairedConfig config = fixed(12345);
        Set<Boolean> seen = new HashSet<>();
        int baselineFirst = 0;
        for (int p = 0; p < 1000; p++) {
            assertThat(config.baselineFirst(p)).isEqualTo(fixed(12345).baselineFirst(p));
            assertThat(config.side(2 * p)).isNotEqualTo(config.side(2 * p + 1));
            seen.add(config.baselineFirst(p));
            if (config.baselineFirst(p)) baselineFirst++;
        }
        assertThat(seen).containsExactlyInAnyOrder(true, false);
        assertThat(baselineFirst).isBetween(430, 570);
    }
}

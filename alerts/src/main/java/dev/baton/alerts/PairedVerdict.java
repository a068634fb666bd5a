package dev.baton.alerts;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.Metrics;
import dev.baton.core.paired.Direction;
import dev.baton.core.paired.MedianConfidenceSequence;
import dev.baton.core.paired.PairedSamples;
import dev.baton.core.paired.StoppingRule;
import dev.baton.protocol.model.PairedConfig;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.statistics.distribution.TDistribution;

/**
 * What a paired run found (issue 45, docs/paired-runs.md): its pairs as run and, per benchmark
 * and measure, the paired difference (candidate − baseline) with its 95 % interval and a verdict.
 * A fixed design ({@code pairs}) judges the mean difference with the paired t interval, {@code
 * mean ± t(0.975, n−1) · s/√n} (Commons Statistics' Student t); a run with {@code
 * until_significant} was looked at after every pair, so it judges the median difference with the
 * always-valid interval it stopped on ({@link MedianConfidenceSequence}; a t interval after
 * optional stopping would not hold its 95 %, decision 0066). A difference whose interval
 * excludes zero is {@code faster} or {@code slower} by the measure's {@link Direction}; any other
 * is {@code no_change} ("no change at this noise"). Computed from the stored iterations whenever
 * the report is read: the same output gives the same verdict.
 */
public record PairedVerdict(
        String design,
        String interval,
        String statistic,
        double confidence,
        @JsonInclude(JsonInclude.Include.NON_NULL) Double minEffect,
        int pairs,
        int maxPairs,
        @JsonInclude(JsonInclude.Include.NON_NULL) String stopped,
        boolean regression,
        List<Run> runs,
        List<Verdict> verdicts) {

    public static final double CONFIDENCE = 1 - StoppingRule.ALPHA;

    /** One pair as it ran: its order ({@code AB}: baseline first) and each side's metrics. */
    public record Run(
            int pair,
            String order,
            @JsonInclude(JsonInclude.Include.ALWAYS) Metrics baseline,
            @JsonInclude(JsonInclude.Include.ALWAYS) Metrics candidate) {}

    /** One metric's verdict; {@code lower}/{@code upper} bound the difference, null while unbounded. */
    public record Verdict(
            String benchmark,
            String measure,
            String direction,
            int pairs,
            double baselineMean,
            double candidateMean,
            double difference,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double relative,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double lower,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double upper,
            String verdict) {

        public boolean slower() {
            return "slower".equals(verdict);
        }
    }

    public static PairedVerdict of(PairedConfig config, List<IterationResults> iterations) {
        List<Metrics> parsed = new ArrayList<>();
        for (IterationResults i : iterations) parsed.add(i.parsed() ? i.results() : null);
        List<PairedSamples.Pair> pairs = PairedSamples.pairs(config, parsed);
        List<Run> runs = pairs.stream()
                .map(p -> new Run(p.pair(), p.order(), p.baseline(), p.candidate()))
                .toList();
        List<PairedSamples.Series> series = PairedSamples.series(pairs);
        List<Verdict> verdicts = series.stream().map(s -> verdict(config, s)).toList();
        String stopped = null;
        if (config.sequential()) {
            if (StoppingRule.decided(series, config.minEffectOrDefault())) stopped = "decided";
            else if (pairs.size() >= config.pairs()) stopped = "max_pairs";
            else stopped = "budget";
        }
        return new PairedVerdict(
                config.sequential() ? "until_significant" : "fixed",
                config.sequential() ? "median_confidence_sequence" : "paired_t",
                config.sequential() ? "median" : "mean",
                CONFIDENCE,
                config.sequential() ? config.minEffectOrDefault() : null,
                pairs.size(),
                config.pairs(),
                stopped,
                verdicts.stream().anyMatch(Verdict::slower),
                runs,
                verdicts);
    }

    private static Verdict verdict(PairedConfig config, PairedSamples.Series s) {
        double[] d = s.differences();
        int n = d.length;
        double difference;
        Double lower = null;
        Double upper = null;
        if (config.sequential()) {
            MedianConfidenceSequence.Interval interval = MedianConfidenceSequence.of(d, StoppingRule.ALPHA);
            difference = interval.median();
            if (interval.bounded()) {
                lower = interval.lower();
                upper = interval.upper();
            }
        } else {
            difference = mean(d);
            double half = tHalfWidth(d, difference);
            if (Double.isFinite(half)) {
                lower = difference - half;
                upper = difference + half;
            }
        }
        double baseline = mean(s.baseline());
        Direction direction = Direction.of(s.measure());
        String verdict = "no_change";
        if (lower != null && (lower > 0 || upper < 0)) {
            boolean increased = lower > 0;
            boolean worse = increased == (direction == Direction.LOWER_IS_BETTER);
            verdict = worse ? "slower" : "faster";
        }
        return new Verdict(
                s.benchmark(),
                s.measure(),
                direction.wireName(),
                n,
                baseline,
                mean(s.candidate()),
                difference,
                baseline == 0 ? null : difference / Math.abs(baseline),
                lower,
                upper,
                verdict);
    }

    /** The fixed design's paired t half-width at 95 %; infinite below two pairs. */
    private static double tHalfWidth(double[] d, double mean) {
        int n = d.length;
        if (n < 2) return Double.POSITIVE_INFINITY;
        double ss = 0;
        for (double v : d) ss += (v - mean) * (v - mean);
        double sd = Math.sqrt(ss / (n - 1));
        double t = TDistribution.of(n - 1).inverseCumulativeProbability(1 - StoppingRule.ALPHA / 2);
        return t * sd / Math.sqrt(n);
    }

    private static double mean(double[] x) {
        double s = 0;
        for (double v : x) s += v;
        return x.length == 0 ? Double.NaN : s / x.length;
    }
}

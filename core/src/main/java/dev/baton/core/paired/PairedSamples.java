package dev.baton.core.paired;

import dev.baton.core.adapter.Metric;
import dev.baton.core.adapter.Metrics;
import dev.baton.protocol.model.PairedConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pairs of a paired run, per benchmark and measure: the baseline's and the candidate's value
 * of each pair that has the metric on both sides, in pair order. Built from each iteration's
 * parsed metrics (null where an iteration did not parse) and the run's {@link PairedConfig},
 * which says which side each iteration ran.
 */
public final class PairedSamples {

    /** One metric's pairs. */
    public record Series(String benchmark, String measure, double[] baseline, double[] candidate) {
        public int size() {
            return baseline.length;
        }

        /** Candidate minus baseline, pair by pair. */
        public double[] differences() {
            double[] d = new double[baseline.length];
            for (int i = 0; i < d.length; i++) d[i] = candidate[i] - baseline[i];
            return d;
        }
    }

    /** One pair as run: its order and each side's metrics (null when that side did not parse). */
    public record Pair(int pair, boolean baselineFirst, Metrics baseline, Metrics candidate) {
        public String order() {
            return baselineFirst ? "AB" : "BA";
        }
    }

    private PairedSamples() {}

    /** The complete pairs among {@code iterations} (a trailing half pair is left out). */
    public static List<Pair> pairs(PairedConfig config, List<Metrics> iterations) {
        List<Pair> out = new ArrayList<>();
        for (int p = 0; 2 * p + 1 < iterations.size(); p++) {
            boolean baselineFirst = config.baselineFirst(p);
            Metrics first = iterations.get(2 * p);
            Metrics second = iterations.get(2 * p + 1);
            out.add(new Pair(p, baselineFirst, baselineFirst ? first : second, baselineFirst ? second : first));
        }
        return out;
    }

    /** Per benchmark and measure (in the order first seen), the pairs with a value on both sides. */
    public static List<Series> series(List<Pair> pairs) {
        Map<String, Map<String, List<double[]>>> values = new LinkedHashMap<>();
        for (Pair pair : pairs) {
            if (pair.baseline() == null || pair.candidate() == null) continue;
            pair.baseline()
                    .benchmarks()
                    .forEach((bench, measures) -> measures.forEach((measure, a) -> {
                        Map<String, Metric> other =
                                pair.candidate().benchmarks().get(bench);
                        Metric b = other == null ? null : other.get(measure);
                        if (b == null) return;
                        values.computeIfAbsent(bench, k -> new LinkedHashMap<>())
                                .computeIfAbsent(measure, k -> new ArrayList<>())
                                .add(new double[] {a.value(), b.value()});
                    }));
        }
        List<Series> out = new ArrayList<>();
        values.forEach((bench, measures) -> measures.forEach((measure, list) -> {
            double[] a = new double[list.size()];
            double[] b = new double[list.size()];
            for (int i = 0; i < a.length; i++) {
                a[i] = list.get(i)[0];
                b[i] = list.get(i)[1];
            }
            out.add(new Series(bench, measure, a, b));
        }));
        return out;
    }

    static double mean(double[] x) {
        double s = 0;
        for (double v : x) s += v;
        return s / x.length;
    }

    static double sd(double[] x) {
        if (x.length < 2) return Double.NaN;
        double m = mean(x);
        double ss = 0;
        for (double v : x) ss += (v - m) * (v - m);
        return Math.sqrt(ss / (x.length - 1));
    }
}

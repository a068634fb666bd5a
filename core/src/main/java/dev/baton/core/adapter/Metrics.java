package dev.baton.core.adapter;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Bencher Metric Format document: benchmark → measure → {@link Metric}, in the order the tool
 * printed them. Serialises as the plain BMF object.
 */
public record Metrics(Map<String, Map<String, Metric>> benchmarks) {

    public static final Metrics EMPTY = new Metrics(Map.of());

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public Metrics {
        Map<String, Map<String, Metric>> copy = new LinkedHashMap<>();
        benchmarks.forEach((b, measures) -> copy.put(b, Collections.unmodifiableMap(new LinkedHashMap<>(measures))));
        benchmarks = Collections.unmodifiableMap(copy);
    }

    @JsonValue
    public Map<String, Map<String, Metric>> benchmarks() {
        return benchmarks;
    }

    public boolean isEmpty() {
        return benchmarks.isEmpty();
    }

    /**
     * Merges several documents (iterations of one job, or repeated samples of one benchmark in
     * one output): per benchmark and measure, one sample stays as it is; several give the mean of
     * their values, with the smallest lower bound and the largest upper bound as the bounds (a
     * sample without bounds counts with its value). So the bounds always cover every sample.
     */
    public static Metrics merge(List<Metrics> documents) {
        Builder b = new Builder();
        for (Metrics d : documents)
            d.benchmarks.forEach((bench, measures) -> measures.forEach((m, metric) -> b.add(bench, m, metric)));
        return b.build();
    }

    /** Collects samples; a benchmark and measure seen more than once merges as {@link #merge} says. */
    public static final class Builder {
        private final Map<String, Map<String, List<Metric>>> samples = new LinkedHashMap<>();

        public Builder add(String benchmark, String measure, Metric metric) {
            if (benchmark == null || benchmark.isBlank()) throw new AdapterException("a benchmark has no name");
            samples.computeIfAbsent(benchmark, k -> new LinkedHashMap<>())
                    .computeIfAbsent(measure, k -> new ArrayList<>())
                    .add(metric);
            return this;
        }

        public boolean isEmpty() {
            return samples.isEmpty();
        }

        public Metrics build() {
            Map<String, Map<String, Metric>> out = new LinkedHashMap<>();
            samples.forEach((bench, measures) -> {
                Map<String, Metric> merged = new LinkedHashMap<>();
                measures.forEach((m, list) -> merged.put(m, combine(list)));
                out.put(bench, merged);
            });
            return new Metrics(out);
        }

        private static Metric combine(List<Metric> list) {
            if (list.size() == 1) return list.getFirst();
            double sum = 0;
            double lower = Double.POSITIVE_INFINITY;
            double upper = Double.NEGATIVE_INFINITY;
            for (Metric m : list) {
                sum += m.value();
                lower = Math.min(lower, m.lowerValue() != null ? m.lowerValue() : m.value());
                upper = Math.max(upper, m.upperValue() != null ? m.upperValue() : m.value());
            }
            return new Metric(sum / list.size(), lower, upper);
        }
    }
}

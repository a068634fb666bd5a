package dev.baton.core.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.Set;

/**
 * {@code cpp_google}: Google Benchmark's JSON ({@code --benchmark_format=json} or
 * {@code --benchmark_out=FILE}), {"context", "benchmarks": [{name, run_name, run_type,
 * real_time, cpu_time, time_unit, items_per_second?, bytes_per_second?}]}. Each entry of
 * {@code run_type} "iteration" gives {@code latency} from {@code real_time} (the wall time per
 * iteration, the column Google Benchmark prints first) in nanoseconds, {@code throughput} from
 * {@code items_per_second} and {@code bandwidth} from {@code bytes_per_second} when present.
 * Repetitions of one benchmark merge (mean, min/max bounds). Aggregates (mean, median, stddev)
 * are skipped, except the mean of a benchmark whose repetitions were not reported
 * ({@code --benchmark_report_aggregates_only}). Entries with {@code error_occurred} are skipped.
 */
public final class GoogleBenchmarkAdapter extends JsonFormat {
    public static final String NAME = "cpp_google";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    boolean recognizes(JsonNode document) {
        JsonNode benchmarks = document.get("benchmarks");
        return document.isObject() && document.has("context") && benchmarks != null && benchmarks.isArray();
    }

    @Override
    Metrics parse(JsonNode document) {
        if (!document.isObject())
            throw new AdapterException("Google Benchmark JSON must be an object with 'benchmarks'");
        JsonNode benchmarks = array(document, "benchmarks");
        Set<String> withIterations = new HashSet<>();
        for (JsonNode b : benchmarks) {
            if (!b.has("run_type") || "iteration".equals(b.path("run_type").asText())) withIterations.add(runName(b));
        }
        Metrics.Builder out = new Metrics.Builder();
        for (int i = 0; i < benchmarks.size(); i++) {
            JsonNode b = benchmarks.get(i);
            String where = "benchmark " + i;
            if (b.path("error_occurred").asBoolean(false)) continue;
            boolean aggregate = "aggregate".equals(b.path("run_type").asText());
            if (aggregate
                    && (withIterations.contains(runName(b))
                            || !"mean".equals(b.path("aggregate_name").asText()))) continue;
            String name = aggregate ? runName(b) : text(b, "name", where);
            String unit = b.hasNonNull("time_unit") ? text(b, "time_unit", where) : "ns";
            double nanos;
            try {
                nanos = Units.nanosOrThrow(unit);
            } catch (AdapterException e) {
                throw new AdapterException(where + ": " + e.getMessage());
            }
            out.add(name, Measures.LATENCY, Metric.of(required(b, "real_time", where) * nanos));
            Double items = number(b, "items_per_second");
            if (items != null) out.add(name, Measures.THROUGHPUT, Metric.of(items));
            Double bytes = number(b, "bytes_per_second");
            if (bytes != null) out.add(name, Measures.BANDWIDTH, Metric.of(bytes));
        }
        return out.build();
    }

    private static String runName(JsonNode b) {
        return b.hasNonNull("run_name")
                ? b.get("run_name").asText()
                : b.path("name").asText();
    }
}

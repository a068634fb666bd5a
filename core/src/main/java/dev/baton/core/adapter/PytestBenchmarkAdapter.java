package dev.baton.core.adapter;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code python_pytest}: pytest-benchmark's {@code --benchmark-json} file, {"machine_info",
 * "benchmarks": [{name, fullname, stats: {min, max, mean, stddev, median, …}}]} with times in
 * seconds. Each test becomes a benchmark named by its {@code fullname} (file and test, unique in
 * a session) with {@code latency} in nanoseconds: the mean, bounded by min and max.
 */
public final class PytestBenchmarkAdapter extends JsonFormat {
    public static final String NAME = "python_pytest";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    boolean recognizes(JsonNode document) {
        JsonNode benchmarks = document.get("benchmarks");
        return document.isObject()
                && benchmarks != null
                && benchmarks.isArray()
                && (document.has("machine_info")
                        || (!benchmarks.isEmpty() && benchmarks.get(0).has("stats")));
    }

    @Override
    Metrics parse(JsonNode document) {
        if (!document.isObject())
            throw new AdapterException("pytest-benchmark JSON must be an object with 'benchmarks'");
        JsonNode benchmarks = array(document, "benchmarks");
        Metrics.Builder out = new Metrics.Builder();
        for (int i = 0; i < benchmarks.size(); i++) {
            JsonNode b = benchmarks.get(i);
            String where = "benchmark " + i;
            String name = b.hasNonNull("fullname") ? text(b, "fullname", where) : text(b, "name", where);
            JsonNode stats = b.get("stats");
            if (stats == null || !stats.isObject()) throw new AdapterException(where + ": 'stats' is missing");
            double mean = required(stats, "mean", where);
            out.add(name, Measures.LATENCY, new Metric(mean, number(stats, "min"), number(stats, "max")).scaled(1e9));
        }
        return out.build();
    }
}

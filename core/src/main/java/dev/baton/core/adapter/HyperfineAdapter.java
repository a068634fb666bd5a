package dev.baton.core.adapter;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code shell_hyperfine}: hyperfine's {@code --export-json} file, {"results": [{command, mean,
 * stddev, median, min, max, times, …}]} with times in seconds. Each command becomes a benchmark
 * named by its {@code command} (hyperfine writes the {@code --command-name} there when one is
 * given) with {@code latency} in nanoseconds: the mean, bounded by the fastest and slowest run.
 */
public final class HyperfineAdapter extends JsonFormat {
    public static final String NAME = "shell_hyperfine";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    boolean recognizes(JsonNode document) {
        JsonNode results = document.get("results");
        return document.isObject()
                && results != null
                && results.isArray()
                && !results.isEmpty()
                && results.get(0).has("command")
                && results.get(0).has("mean");
    }

    @Override
    Metrics parse(JsonNode document) {
        if (!document.isObject()) throw new AdapterException("hyperfine JSON must be an object with 'results'");
        JsonNode results = array(document, "results");
        Metrics.Builder out = new Metrics.Builder();
        for (int i = 0; i < results.size(); i++) {
            JsonNode r = results.get(i);
            String where = "result " + i;
            double mean = required(r, "mean", where);
            out.add(
                    text(r, "command", where),
                    Measures.LATENCY,
                    new Metric(mean, number(r, "min"), number(r, "max")).scaled(1e9));
        }
        return out.build();
    }
}

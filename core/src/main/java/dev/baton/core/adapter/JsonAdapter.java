package dev.baton.core.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/**
 * {@code json}: the output is Bencher Metric Format itself, a JSON object of benchmark →
 * measure → {value, lower_value?, upper_value?} (https://bencher.dev/docs/reference/bencher-metric-format/).
 * Measure names and units are the caller's. An empty object is valid: no benchmarks.
 */
public final class JsonAdapter extends JsonFormat {
    public static final String NAME = "json";

    @Override
    public String name() {
        return NAME;
    }

    /** Any object whose members are all objects of objects with a {@code value}. */
    @Override
    boolean recognizes(JsonNode document) {
        if (!document.isObject() || document.isEmpty()) return false;
        for (JsonNode measures : document) {
            if (!measures.isObject()) return false;
            for (JsonNode metric : measures) {
                if (!metric.isObject() || !metric.has("value")) return false;
            }
        }
        return true;
    }

    @Override
    Metrics parse(JsonNode document) {
        if (!document.isObject()) throw new AdapterException("BMF must be a JSON object of benchmarks");
        Metrics.Builder out = new Metrics.Builder();
        for (Iterator<Map.Entry<String, JsonNode>> b = document.fields(); b.hasNext(); ) {
            var bench = b.next();
            if (!bench.getValue().isObject())
                throw new AdapterException("benchmark '" + bench.getKey() + "' must be an object of measures");
            for (Iterator<Map.Entry<String, JsonNode>> m = bench.getValue().fields(); m.hasNext(); ) {
                var measure = m.next();
                String where = "'" + bench.getKey() + "' → '" + measure.getKey() + "'";
                JsonNode metric = measure.getValue();
                if (!metric.isObject()) throw new AdapterException(where + " must be an object with a value");
                try {
                    out.add(
                            bench.getKey(),
                            measure.getKey(),
                            new Metric(
                                    required(metric, "value", where),
                                    number(metric, "lower_value"),
                                    number(metric, "upper_value")));
                } catch (AdapterException e) {
                    throw e.getMessage().startsWith(where) ? e : new AdapterException(where + ": " + e.getMessage());
                }
            }
        }
        return out.build();
    }
}

package dev.baton.core.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.StringJoiner;

/**
 * {@code java_jmh}: JMH's JSON result file ({@code -rf json}), an array with one object per
 * benchmark run. Each run's {@code primaryMetric} gives {@code score}, {@code scoreConfidence}
 * [low, high] and {@code scoreUnit}. A time-per-operation unit ({@code ns/op}, {@code us/op},
 * {@code ms/op}, {@code s/op}) becomes {@code latency} in nanoseconds; an operations-per-time unit
 * ({@code ops/s}, {@code ops/ms}, {@code ops/us}, {@code ops/ns}, {@code ops/min}) becomes
 * {@code throughput} in operations per second. The benchmark's name is JMH's {@code benchmark}
 * (class and method), followed by its {@code params} as {@code {name=value,…}} when it has any,
 * so each parameter combination is its own benchmark. A confidence of NaN (one fork, one
 * iteration) leaves the bounds out.
 */
public final class JmhAdapter extends JsonFormat {
    public static final String NAME = "java_jmh";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    boolean recognizes(JsonNode document) {
        return document.isArray() && !document.isEmpty() && document.get(0).has("primaryMetric");
    }

    @Override
    Metrics parse(JsonNode document) {
        if (!document.isArray()) throw new AdapterException("JMH JSON must be an array of benchmark runs");
        Metrics.Builder out = new Metrics.Builder();
        for (int i = 0; i < document.size(); i++) {
            JsonNode run = document.get(i);
            String where = "run " + i;
            String name = text(run, "benchmark", where) + params(run.get("params"));
            JsonNode primary = run.get("primaryMetric");
            if (primary == null || !primary.isObject())
                throw new AdapterException(where + ": 'primaryMetric' is missing");
            double score = required(primary, "score", where);
            Double low = null;
            Double high = null;
            JsonNode confidence = primary.get("scoreConfidence");
            if (confidence != null && confidence.isArray() && confidence.size() == 2) {
                low = number(confidence, 0);
                high = number(confidence, 1);
            }
            if (low == null || high == null) {
                low = null;
                high = null;
            }
            String unit = text(primary, "scoreUnit", where);
            Scale scale = scale(unit, where);
            out.add(name, scale.measure(), new Metric(score, low, high).scaled(scale.factor()));
        }
        return out.build();
    }

    /** The measure a score unit belongs to, and the factor into its base unit (ns, or ops per second). */
    private record Scale(String measure, double factor) {}

    private static Scale scale(String unit, String where) {
        String[] parts = unit.split("/", 2);
        if (parts.length == 2 && parts[0].equals("ops") && Units.nanos(parts[1]).isPresent()) {
            return new Scale(Measures.THROUGHPUT, 1e9 / Units.nanos(parts[1]).get());
        }
        if (parts.length == 2 && parts[1].equals("op") && Units.nanos(parts[0]).isPresent()) {
            return new Scale(Measures.LATENCY, Units.nanos(parts[0]).get());
        }
        throw new AdapterException(
                where + ": unsupported score unit '" + unit + "' (expected <time>/op or ops/<time>)");
    }

    private static Double number(JsonNode array, int index) {
        JsonNode n = array.get(index);
        if (n != null && n.isNumber()) return n.doubleValue();
        return null;
    }

    private static String params(JsonNode params) {
        if (params == null || !params.isObject() || params.isEmpty()) return "";
        StringJoiner joined = new StringJoiner(",", "{", "}");
        for (Iterator<Map.Entry<String, JsonNode>> it = params.fields(); it.hasNext(); ) {
            var p = it.next();
            joined.add(p.getKey() + "=" + p.getValue().asText());
        }
        return joined.toString();
    }
}

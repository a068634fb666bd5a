package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A report's metrics as a table: benchmark, measure, value and bounds, per iteration when there
 * were several. Reads the contract's shape ({@code iterations: [{iteration, results, error}]}, and
 * the merged {@code results} object) and the older one ({@code results} as an array with one
 * Bencher Metric Format document per iteration).
 */
final class Metrics {
    private Metrics() {}

    /** One iteration's results (a BMF object, may be null) and its adapter error, if any. */
    record Iteration(int number, JsonNode results, String error) {}

    static List<Iteration> iterations(JsonNode report) {
        List<Iteration> list = new ArrayList<>();
        JsonNode iterations = report.path("iterations");
        if (iterations.isArray() && !iterations.isEmpty()) {
            for (JsonNode it : iterations) {
                list.add(new Iteration(
                        it.path("iteration").asInt(list.size()),
                        it.get("results"),
                        it.hasNonNull("error") ? it.get("error").asText() : null));
            }
            return list;
        }
        JsonNode results = report.path("results");
        if (results.isArray()) {
            for (JsonNode r : results) list.add(new Iteration(list.size(), r, null));
        } else if (results.isObject()) {
            list.add(new Iteration(0, results, null));
        }
        return list;
    }

    /** Prints the table (and the report's error, if any); says so when there are no metrics. */
    static void print(JsonNode report, PrintWriter out) {
        List<Iteration> iterations = iterations(report);
        boolean several = iterations.size() > 1;
        Table table = several
                ? new Table("ITERATION", "BENCHMARK", "MEASURE", "VALUE", "LOWER", "UPPER")
                : new Table("BENCHMARK", "MEASURE", "VALUE", "LOWER", "UPPER");
        for (Iteration it : iterations) {
            if (it.results() == null || !it.results().isObject()) continue;
            for (Iterator<Map.Entry<String, JsonNode>> b = it.results().fields(); b.hasNext(); ) {
                Map.Entry<String, JsonNode> benchmark = b.next();
                for (Iterator<Map.Entry<String, JsonNode>> m =
                                benchmark.getValue().fields();
                        m.hasNext(); ) {
                    Map.Entry<String, JsonNode> measure = m.next();
                    JsonNode v = measure.getValue();
                    String value = number(v.isObject() ? v.get("value") : v);
                    String lower = number(v.get("lower_value"));
                    String upper = number(v.get("upper_value"));
                    if (several)
                        table.row(
                                String.valueOf(it.number()), benchmark.getKey(), measure.getKey(), value, lower, upper);
                    else table.row(benchmark.getKey(), measure.getKey(), value, lower, upper);
                }
            }
        }
        if (table.isEmpty()) out.println("(no metrics)");
        else table.print(out);
        for (Iteration it : iterations) {
            if (it.error() != null) out.println("iteration " + it.number() + ": " + it.error());
        }
        if (report.hasNonNull("error"))
            out.println("report error: " + report.get("error").asText());
        out.flush();
    }

    /** A metric as a person reads it: 40 rather than 40.0, no exponent for ordinary magnitudes. */
    static String number(JsonNode n) {
        if (n == null || !n.isNumber()) return Output.text(n);
        return n.decimalValue().stripTrailingZeros().toPlainString();
    }
}

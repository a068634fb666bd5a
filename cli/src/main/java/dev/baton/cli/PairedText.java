package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A paired run's report as a person reads it (issue 45, docs/paired-runs.md): each pair's order
 * and both sides' values, then per metric the difference (the mean's for a fixed design, the median's until
 * significant) with its 95 % interval and the
 * verdict, and how the run ended.
 */
final class PairedText {
    private PairedText() {}

    static boolean isPaired(JsonNode report) {
        return report != null && report.path("paired").isObject();
    }

    /** Whether the verdict calls any metric slower (what {@code --fail-on-regression} exits 8 for). */
    static boolean regression(JsonNode report) {
        return isPaired(report) && report.at("/paired/regression").asBoolean();
    }

    /** The metrics the verdict calls slower, as {@code benchmark measure} words. */
    static List<String> slower(JsonNode report) {
        List<String> out = new ArrayList<>();
        for (JsonNode v : report.at("/paired/verdicts")) {
            if (v.path("verdict").asText().equals("slower"))
                out.add(v.path("benchmark").asText() + " " + v.path("measure").asText());
        }
        return out;
    }

    static void print(JsonNode report, PrintWriter out) {
        JsonNode paired = report.get("paired");
        Table pairs = new Table("PAIR", "ORDER", "BENCHMARK", "MEASURE", "BASELINE", "CANDIDATE");
        for (JsonNode run : paired.path("runs")) {
            JsonNode a = run.path("baseline");
            JsonNode b = run.path("candidate");
            JsonNode names = a.isObject() ? a : b;
            for (Iterator<Map.Entry<String, JsonNode>> bi = names.fields(); bi.hasNext(); ) {
                Map.Entry<String, JsonNode> bench = bi.next();
                for (Iterator<String> mi = bench.getValue().fieldNames(); mi.hasNext(); ) {
                    String measure = mi.next();
                    pairs.row(
                            run.path("pair").asText(),
                            run.path("order").asText(),
                            bench.getKey(),
                            measure,
                            Metrics.number(a.path(bench.getKey()).path(measure).get("value")),
                            Metrics.number(b.path(bench.getKey()).path(measure).get("value")));
                }
            }
        }
        if (pairs.isEmpty()) out.println("(no pairs)");
        else pairs.print(out);
        out.println();
        Table verdicts = new Table(
                "BENCHMARK",
                "MEASURE",
                "PAIRS",
                "BASELINE",
                "CANDIDATE",
                "DIFFERENCE",
                "CHANGE",
                "95% INTERVAL",
                "VERDICT");
        for (JsonNode v : paired.path("verdicts")) {
            String interval = v.hasNonNull("lower")
                    ? "[" + Metrics.number(v.get("lower")) + ", " + Metrics.number(v.get("upper")) + "]"
                    : "(unbounded)";
            verdicts.row(
                    v.path("benchmark").asText(),
                    v.path("measure").asText(),
                    v.path("pairs").asText(),
                    Metrics.number(v.get("baseline_mean")),
                    Metrics.number(v.get("candidate_mean")),
                    Metrics.number(v.get("difference")),
                    v.hasNonNull("relative")
                            ? String.format(
                                    Locale.ROOT,
                                    "%+.2f %%",
                                    100 * v.get("relative").asDouble())
                            : null,
                    interval,
                    words(v.path("verdict").asText()));
        }
        if (verdicts.isEmpty()) out.println("(no metric on both sides: no verdict)");
        else verdicts.print(out);
        out.println(summary(paired));
        out.flush();
    }

    private static String words(String verdict) {
        return verdict.equals("no_change") ? "no change at this noise" : verdict;
    }

    private static String summary(JsonNode paired) {
        int n = paired.path("pairs").asInt();
        if (paired.path("design").asText().equals("until_significant")) {
            String why = switch (paired.path("stopped").asText()) {
                case "decided" -> "every metric decided";
                case "max_pairs" -> "the most pairs ran";
                default -> "the budget ran out";
            };
            return "Until significant: " + n + " of at most "
                    + paired.path("max_pairs").asInt()
                    + " pairs, stopped because " + why
                    + "; median differences, always-valid 95 % intervals (minimum effect "
                    + String.format(
                            Locale.ROOT, "%.4g", 100 * paired.path("min_effect").asDouble()) + " %).";
        }
        return n + " pairs; mean differences, paired t 95 % intervals.";
    }
}

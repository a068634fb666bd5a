package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the project's thresholds made of a report (docs/alerts.md): each judged metric with its
 * boundaries, then one line per alert. Prints nothing for a report no threshold judged.
 */
final class Alerts {
    private Alerts() {}

    /** True when judging raised at least one alert on the report. */
    static boolean raised(JsonNode report) {
        return report != null
                && report.path("alerts").isArray()
                && !report.path("alerts").isEmpty();
    }

    /** The report's alert groups (docs/alerts.md, "Triage and groups"), in the order of their first alert. */
    static List<String> groups(JsonNode report) {
        Set<String> groups = new LinkedHashSet<>();
        for (JsonNode a : report.path("alerts")) {
            if (a.hasNonNull("group")) groups.add(a.get("group").asText());
        }
        return List.copyOf(groups);
    }

    static void print(JsonNode report, PrintWriter out) {
        Table bounds = new Table("BENCHMARK", "MEASURE", "VALUE", "LOWER LIMIT", "UPPER LIMIT", "MODEL", "BASELINE");
        for (JsonNode m : report.path("metrics")) {
            for (JsonNode b : m.path("boundaries")) {
                bounds.row(
                        m.path("benchmark").asText(),
                        m.path("measure").asText(),
                        Metrics.number(m.get("value")),
                        limit(b.get("lower_limit")),
                        limit(b.get("upper_limit")),
                        b.path("model").asText(),
                        baseline(b.path("baseline")));
            }
        }
        if (!bounds.isEmpty()) {
            out.println();
            bounds.print(out);
        }
        for (JsonNode a : report.path("alerts")) out.println(line(a));
        for (String g : groups(report)) {
            long n = 0;
            for (JsonNode a : report.path("alerts"))
                n += g.equals(a.path("group").asText()) ? 1 : 0;
            out.println("GROUP " + g + ": " + n + (n == 1 ? " alert" : " alerts")
                    + " of this report, triaged as one (baton alerts triage --group " + g + ")");
        }
        out.flush();
    }

    /** One alert as a sentence: which metric, which side, by how much, against what. */
    static String line(JsonNode a) {
        String side = a.path("side").asText();
        return "ALERT " + a.path("uuid").asText() + ": " + a.path("benchmark").asText() + " "
                + a.path("measure").asText() + " = "
                + Metrics.number(a.get("value")) + (side.equals("upper") ? " is above " : " is below ") + "the " + side
                + " limit "
                + Metrics.number(a.get("limit")) + " (" + a.path("model").asText() + " over "
                + baseline(a.path("baseline")) + ")";
    }

    static String baseline(JsonNode b) {
        String n = b.path("size").asText() + " earlier results";
        if (!b.hasNonNull("mean")) return n;
        return n + ", mean " + Metrics.number(b.get("mean"))
                + (b.hasNonNull("stddev") ? " ± " + Metrics.number(b.get("stddev")) : "");
    }

    private static String limit(JsonNode n) {
        return n == null || n.isNull() ? "-" : Metrics.number(n);
    }
}

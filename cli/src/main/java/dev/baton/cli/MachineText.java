package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A machine fingerprint (docs/scheduling.md) as a few lines a person reads beside the numbers:
 * what the machine was, then each noise warning. Unknown values say "unknown", never a guess.
 */
final class MachineText {
    private MachineText() {}

    /** Prints {@code fingerprint} under a heading; nothing when there is none (an older runner). */
    static void print(String heading, JsonNode fingerprint, PrintWriter out) {
        if (fingerprint == null || !fingerprint.isObject()) return;
        out.println();
        out.println(heading + " (read " + Output.text(fingerprint.get("taken")) + ")");
        Table t = new Table("MACHINE", "VALUE");
        t.row("cpu", known(fingerprint.get("cpu_model")) + ", " + known(fingerprint.get("cpus")) + " CPUs");
        String busy = fingerprint.hasNonNull("job_cpus_busy")
                ? String.format(
                        Locale.ROOT,
                        " (%.0f%% busy before start)",
                        fingerprint.get("job_cpus_busy").asDouble() * 100)
                : "";
        t.row("job cpus", known(fingerprint.get("job_cpus")) + busy);
        t.row("governor", known(fingerprint.get("governor")));
        t.row("turbo", onOff(fingerprint.get("turbo")));
        t.row("smt", known(fingerprint.get("smt")));
        t.row("kernel", known(fingerprint.get("kernel")));
        t.row(
                "memory",
                bytes(fingerprint.get("memory_total")) + " (" + bytes(fingerprint.get("memory_available"))
                        + " available), swap "
                        + (fingerprint.hasNonNull("swap_total")
                                        && fingerprint.get("swap_total").asLong() == 0
                                ? "off"
                                : bytes(fingerprint.get("swap_total"))));
        t.row("load", load(fingerprint.get("load_average")));
        t.row(
                "executor",
                known(fingerprint.get("executor"))
                        + (fingerprint.hasNonNull("executor_version")
                                ? " (" + fingerprint.get("executor_version").asText() + ")"
                                : "")
                        + ", runner " + known(fingerprint.get("runner_version")));
        t.print(out);
        JsonNode warnings = fingerprint.path("warnings");
        if (warnings.isEmpty()) {
            out.println("clean: no setting that adds noise was found");
        } else {
            for (JsonNode w : warnings)
                out.println("warning " + w.path("code").asText() + ": "
                        + w.path("message").asText());
        }
    }

    private static String known(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode() ? "unknown" : node.asText();
    }

    private static String onOff(JsonNode node) {
        return node == null || !node.isBoolean() ? "unknown" : node.asBoolean() ? "on" : "off";
    }

    private static String bytes(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode() ? "unknown" : Output.bytes(node);
    }

    private static String load(JsonNode node) {
        if (node == null || !node.isArray()) return "unknown";
        List<String> parts = new ArrayList<>();
        node.forEach(l -> parts.add(l.asText()));
        return String.join(" ", parts) + " (1, 5, 15 min)";
    }
}

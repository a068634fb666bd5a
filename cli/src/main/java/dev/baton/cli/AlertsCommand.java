package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "alerts",
        mixinStandardHelpOptions = true,
        description = "Metrics that fell outside a threshold's boundary (docs/alerts.md): list, dismiss, reopen.",
        subcommands = {AlertsCommand.ListAlerts.class, AlertsCommand.Dismiss.class, AlertsCommand.Reopen.class})
final class AlertsCommand {
    @Command(name = "list", description = "List a project's alerts, newest first.")
    static final class ListAlerts extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Option(names = "--status", description = "active or dismissed (default: both)")
        String status;

        @Option(names = "--branch")
        String branch;

        @Option(names = "--benchmark")
        String benchmark;

        @Option(names = "--report", description = "only this report's alerts")
        String report;

        @Option(names = "--limit", description = "1-500 (default 50)")
        Integer limit;

        @Override
        JsonNode call(ApiClient api) {
            List<String> q = new ArrayList<>();
            if (status != null) q.add("status=" + seg(status));
            if (branch != null) q.add("branch=" + seg(branch));
            if (benchmark != null) q.add("benchmark=" + seg(benchmark));
            if (report != null) q.add("report=" + seg(report));
            if (limit != null) q.add("limit=" + limit);
            return api.get("/v0/projects/" + seg(project) + "/alerts" + (q.isEmpty() ? "" : "?" + String.join("&", q)));
        }

        @Override
        void human(JsonNode answer, PrintWriter out) {
            Table t = new Table(
                    "ALERT", "STATUS", "BRANCH", "BENCHMARK", "MEASURE", "VALUE", "SIDE", "LIMIT", "MODEL", "CREATED");
            for (JsonNode a : answer.path("alerts")) {
                t.row(
                        a.path("uuid").asText(),
                        a.path("status").asText(),
                        a.path("branch").asText(),
                        a.path("benchmark").asText(),
                        a.path("measure").asText(),
                        Metrics.number(a.get("value")),
                        a.path("side").asText(),
                        Metrics.number(a.get("limit")),
                        a.path("model").asText(),
                        a.path("created").asText());
            }
            if (t.isEmpty()) out.println("(no alerts)");
            else t.print(out);
        }
    }

    @Command(name = "dismiss", description = "Dismiss an alert (submitter and up).")
    static final class Dismiss extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "ALERT", description = "alert UUID")
        String alert;

        @Override
        JsonNode call(ApiClient api) {
            return api.post("/v0/projects/" + seg(project) + "/alerts/" + seg(alert) + "/dismiss", Map.of());
        }

        @Override
        void human(JsonNode a, PrintWriter out) {
            out.println("Dismissed alert " + a.path("uuid").asText() + ".");
        }
    }

    @Command(name = "reopen", description = "Make a dismissed alert active again (submitter and up).")
    static final class Reopen extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "ALERT", description = "alert UUID")
        String alert;

        @Override
        JsonNode call(ApiClient api) {
            return api.post("/v0/projects/" + seg(project) + "/alerts/" + seg(alert) + "/reopen", Map.of());
        }

        @Override
        void human(JsonNode a, PrintWriter out) {
            out.println("Reopened alert " + a.path("uuid").asText() + ".");
        }
    }
}

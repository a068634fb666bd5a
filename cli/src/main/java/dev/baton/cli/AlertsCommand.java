package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "alerts",
        mixinStandardHelpOptions = true,
        description =
                "Metrics that fell outside a threshold's boundary (docs/alerts.md): list, groups, triage, dismiss, reopen.",
        subcommands = {
            AlertsCommand.ListAlerts.class,
            AlertsCommand.Groups.class,
            AlertsCommand.TriageAlerts.class,
            AlertsCommand.Dismiss.class,
            AlertsCommand.Reopen.class
        })
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
                    "ALERT",
                    "STATUS",
                    "TRIAGE",
                    "GROUP",
                    "BRANCH",
                    "BENCHMARK",
                    "MEASURE",
                    "VALUE",
                    "SIDE",
                    "LIMIT",
                    "MODEL",
                    "CREATED");
            for (JsonNode a : answer.path("alerts")) {
                t.row(
                        a.path("uuid").asText(),
                        a.path("status").asText(),
                        a.path("triage").path("state").asText("untriaged"),
                        a.path("group").asText("-"),
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

    @Command(
            name = "groups",
            description = "List a project's alert groups (the alerts of one report's judgement), newest first.")
    static final class Groups extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Option(
                names = "--triage",
                description = "only groups with an alert in this state: untriaged, acknowledged, expected, culprit,"
                        + " false_positive")
        String triage;

        @Option(names = "--branch")
        String branch;

        @Option(names = "--report", description = "only this report's group")
        String report;

        @Option(names = "--limit", description = "1-500 (default 50)")
        Integer limit;

        @Override
        JsonNode call(ApiClient api) {
            List<String> q = new ArrayList<>();
            if (triage != null) q.add("triage=" + seg(triage));
            if (branch != null) q.add("branch=" + seg(branch));
            if (report != null) q.add("report=" + seg(report));
            if (limit != null) q.add("limit=" + limit);
            return api.get(
                    "/v0/projects/" + seg(project) + "/alert-groups" + (q.isEmpty() ? "" : "?" + String.join("&", q)));
        }

        @Override
        void human(JsonNode answer, PrintWriter out) {
            Table t = new Table("GROUP", "TRIAGE", "ALERTS", "BRANCH", "TESTBED", "COMMITS", "REPORT", "CREATED");
            for (JsonNode g : answer.path("groups")) {
                t.row(
                        g.path("uuid").asText(),
                        g.path("triage").path("state").asText(),
                        String.valueOf(g.path("alerts").size()),
                        g.path("branch").asText(),
                        g.path("testbed").asText(),
                        range(g),
                        g.path("report").asText(),
                        g.path("created").asText());
            }
            if (t.isEmpty()) out.println("(no alert groups)");
            else t.print(out);
        }

        /** The commit range as git writes it: previous..hash, or what is known of it. */
        static String range(JsonNode g) {
            String to = g.path("hash").asText(null);
            String from = g.path("previous_hash").asText(null);
            if (to == null) return "-";
            return from == null ? to : from + ".." + to;
        }
    }

    @Command(
            name = "triage",
            description = "Triage one alert or, with --group, every alert of a group (submitter and up).")
    static final class TriageAlerts extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Option(names = "--group", description = "triage this group (UUID) as a whole")
        String group;

        @Parameters(paramLabel = "ALERT", arity = "0..1", description = "alert UUID (without --group)")
        String alert;

        @Option(
                names = "--state",
                required = true,
                description = "untriaged, acknowledged, expected, culprit (with --commit), false_positive")
        String state;

        @Option(names = "--note", description = "why (at most 2,000 characters)")
        String note;

        @Option(names = "--commit", description = "the culprit commit (with --state culprit)")
        String commit;

        @Override
        JsonNode call(ApiClient api) {
            if ((group == null) == (alert == null))
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "name an ALERT or --group GROUP (one of them)");
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("state", state);
            if (note != null) body.put("note", note);
            if (commit != null) body.put("commit", commit);
            String path = group != null
                    ? "/v0/projects/" + seg(project) + "/alert-groups/" + seg(group) + "/triage"
                    : "/v0/projects/" + seg(project) + "/alerts/" + seg(alert) + "/triage";
            return api.post(path, body);
        }

        @Override
        void human(JsonNode a, PrintWriter out) {
            String what = group != null
                    ? "group " + a.path("uuid").asText() + " ("
                            + a.path("alerts").size() + (a.path("alerts").size() == 1 ? " alert)" : " alerts)")
                    : "alert " + a.path("uuid").asText();
            out.println(
                    "Triaged " + what + " as " + a.path("triage").path("state").asText() + ".");
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

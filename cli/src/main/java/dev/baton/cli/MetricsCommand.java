package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "metrics",
        mixinStandardHelpOptions = true,
        description = "A project's judged metrics (docs/alerts.md).",
        subcommands = {MetricsCommand.History.class})
final class MetricsCommand {
    @Command(
            name = "history",
            description =
                    "One benchmark and measure over time, newest first, with the boundaries each point was judged by.")
    static final class History extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Option(names = "--benchmark", required = true)
        String benchmark;

        @Option(names = "--measure", required = true, description = "e.g. latency")
        String measure;

        @Option(names = "--branch")
        String branch;

        @Option(names = "--testbed")
        String testbed;

        @Option(names = "--limit", description = "1-500 (default 50)")
        Integer limit;

        @Option(names = "--before", description = "the next of a previous page")
        Long before;

        @Override
        JsonNode call(ApiClient api) {
            List<String> q = new ArrayList<>(List.of("benchmark=" + seg(benchmark), "measure=" + seg(measure)));
            if (branch != null) q.add("branch=" + seg(branch));
            if (testbed != null) q.add("testbed=" + seg(testbed));
            if (limit != null) q.add("limit=" + limit);
            if (before != null) q.add("before=" + before);
            return api.get("/v0/projects/" + seg(project) + "/metrics?" + String.join("&", q));
        }

        @Override
        void human(JsonNode answer, PrintWriter out) {
            Table t = new Table(
                    "AT", "BRANCH", "TESTBED", "HASH", "VALUE", "LOWER LIMIT", "UPPER LIMIT", "MODEL", "REPORT");
            for (JsonNode m : answer.path("metrics")) {
                JsonNode b = m.path("boundaries").path(0);
                t.row(
                        m.path("at").asText(),
                        m.path("branch").asText(),
                        m.path("testbed").asText(),
                        m.hasNonNull("hash") ? m.get("hash").asText() : "-",
                        Metrics.number(m.get("value")),
                        b.hasNonNull("lower_limit") ? Metrics.number(b.get("lower_limit")) : "-",
                        b.hasNonNull("upper_limit") ? Metrics.number(b.get("upper_limit")) : "-",
                        b.isMissingNode() ? "-" : b.path("model").asText(),
                        m.path("report").asText());
            }
            if (t.isEmpty()) out.println("(no metrics)");
            else t.print(out);
            if (answer.hasNonNull("next"))
                out.println("more: --before " + answer.get("next").asText());
        }
    }
}

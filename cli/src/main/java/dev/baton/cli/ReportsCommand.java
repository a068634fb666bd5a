package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "reports",
        mixinStandardHelpOptions = true,
        description = "Read reports (the metrics of runs).",
        subcommands = {ReportsCommand.Get.class})
final class ReportsCommand {
    @Command(
            name = "get",
            description = "Show a report: its adapter, its metrics per benchmark and measure, and any parse error.")
    static final class Get extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "REPORT", description = "report UUID (baton run and baton jobs get show it)")
        String report;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/projects/" + seg(project) + "/reports/" + seg(report));
        }

        @Override
        void human(JsonNode r, PrintWriter out) {
            Table t = new Table("FIELD", "VALUE");
            t.row("report", r.path("uuid").asText());
            t.row("adapter", Output.text(r.get("adapter")));
            t.row("branch", Output.text(r.get("branch")));
            t.row("testbed", Output.text(r.get("testbed")));
            t.row("job", r.path("job").isObject() ? r.path("job").path("uuid").asText() : "-");
            t.row("start", Output.text(r.get("start_time")));
            t.row("end", Output.text(r.get("end_time")));
            t.print(out);
            out.println();
            Metrics.print(r, out);
            Alerts.print(r, out);
            MachineText.print("measured on", r.path("job").get("fingerprint"), out);
        }
    }
}

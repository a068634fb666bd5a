package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "schedules",
        mixinStandardHelpOptions = true,
        description =
                "Manage schedules: a run submitted on a cron expression (e.g. a nightly benchmark), or once later.",
        subcommands = {
            SchedulesCommand.Create.class,
            SchedulesCommand.ListSchedules.class,
            SchedulesCommand.Get.class,
            SchedulesCommand.Pause.class,
            SchedulesCommand.Resume.class,
            SchedulesCommand.Delete.class
        })
final class SchedulesCommand {
    @Command(
            name = "create",
            description = {
                "Create a schedule: --cron (with --timezone) or --at, and the run as 'baton run' takes it.",
                "Example: baton schedules create --name nightly --cron '0 3 * * *' --timezone Europe/Berlin --project p --spec s --image v1"
            })
    static final class Create extends ClientCommand {
        @Option(names = "--name", required = true)
        String name;

        @Option(names = "--cron", description = "five fields (minute hour day month weekday) or @daily, @hourly, …")
        String cron;

        @Option(names = "--timezone", description = "the cron's time zone, e.g. Europe/Berlin (default UTC)")
        String timezone;

        @Option(names = "--at", description = "instead of --cron: run once at this ISO-8601 instant")
        String at;

        @Mixin
        RunOptions run;

        @Override
        JsonNode call(ApiClient api) {
            if ((cron == null) == (at == null)) throw new ClientException("give either --cron or --at");
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("name", name);
            if (cron != null) body.put("cron", cron);
            if (at != null) body.put("at", at);
            if (timezone != null) body.put("timezone", timezone);
            body.put("run", run.body());
            return api.post("/v0/schedules", body);
        }
    }

    @Command(name = "list", description = "List schedules.")
    static final class ListSchedules extends ClientCommand {
        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/schedules");
        }

        @Override
        void human(JsonNode schedules, java.io.PrintWriter out) {
            Table t = new Table("NAME", "WHEN", "TIMEZONE", "STATE", "NEXT", "LAST REPORT", "LAST ERROR");
            for (JsonNode s : schedules) {
                t.row(
                        s.path("name").asText(),
                        s.path("cron").isNull() ? "once" : s.path("cron").asText(),
                        s.path("timezone").asText(),
                        s.path("state").asText(),
                        Output.text(s.get("next_fire")),
                        Output.text(s.get("last_report")),
                        Output.text(s.get("last_error")));
            }
            if (t.isEmpty()) out.println("(no schedules)");
            else t.print(out);
        }
    }

    @Command(name = "get", description = "Show one schedule.")
    static final class Get extends ClientCommand {
        @Parameters(paramLabel = "SCHEDULE", description = "UUID or name")
        String schedule;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/schedules/" + seg(schedule));
        }
    }

    @Command(name = "pause", description = "Pause a schedule (it submits nothing until resumed).")
    static final class Pause extends ClientCommand {
        @Parameters(paramLabel = "SCHEDULE")
        String schedule;

        @Override
        JsonNode call(ApiClient api) {
            return api.post("/v0/schedules/" + seg(schedule) + "/pause", Map.of());
        }
    }

    @Command(
            name = "resume",
            description = "Resume a paused schedule from now (occurrences while paused are not caught up).")
    static final class Resume extends ClientCommand {
        @Parameters(paramLabel = "SCHEDULE")
        String schedule;

        @Override
        JsonNode call(ApiClient api) {
            return api.post("/v0/schedules/" + seg(schedule) + "/resume", Map.of());
        }
    }

    @Command(name = "delete", description = "Delete a schedule (runs it already submitted stay).")
    static final class Delete extends ClientCommand {
        @Parameters(paramLabel = "SCHEDULE")
        String schedule;

        @Override
        JsonNode call(ApiClient api) {
            api.delete("/v0/schedules/" + seg(schedule));
            note("deleted " + schedule);
            return null;
        }
    }
}

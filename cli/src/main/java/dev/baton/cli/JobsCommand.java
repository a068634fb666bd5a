package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "jobs",
        mixinStandardHelpOptions = true,
        description = "List, inspect, follow, cancel and re-run a project's jobs.",
        subcommands = {
            JobsCommand.ListJobs.class,
            JobsCommand.Get.class,
            JobsCommand.Logs.class,
            JobsCommand.Cancel.class,
            RerunCommand.class
        })
final class JobsCommand {
    @Command(name = "list", description = "List jobs, newest first.")
    static final class ListJobs extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Option(names = "--status", description = "pending, claimed, running, completed, failed, canceled, processed")
        String status;

        @Option(names = "--spec")
        String specRef;

        @Option(names = "--runner")
        String runner;

        @Option(names = "--limit")
        Integer limit;

        @Option(names = "--offset")
        Integer offset;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> q = new LinkedHashMap<>();
            q.put("status", status);
            q.put("spec", specRef);
            q.put("runner", runner);
            q.put("limit", limit);
            q.put("offset", offset);
            return api.get("/v0/projects/" + seg(project) + "/jobs" + ApiClient.query(q));
        }

        @Override
        void human(JsonNode answer, PrintWriter out) {
            Table table = new Table("JOB", "STATUS", "CREATED", "WHY / ERROR");
            for (JsonNode j : answer.path("jobs")) {
                String why = j.hasNonNull("error")
                        ? j.get("error").asText()
                        : j.path("pending_reason").path("message").asText("");
                table.row(
                        j.path("uuid").asText(),
                        j.path("status").asText(),
                        j.path("created").asText(),
                        why);
            }
            if (table.isEmpty()) out.println("(no jobs)");
            else table.print(out);
            if (answer.hasNonNull("next_offset"))
                out.println("more: --offset " + answer.get("next_offset").asInt());
        }
    }

    /** What a JOB parameter may be besides a UUID: the project's newest job, so a walkthrough needs no copying of ids. */
    static final String LATEST = "latest";

    /** The UUID that {@code job} names: itself, or for {@code latest} the project's newest job. */
    static String resolve(ApiClient api, String project, String job) {
        if (!LATEST.equals(job)) return job;
        JsonNode newest =
                api.get("/v0/projects/" + seg(project) + "/jobs?limit=1").path("jobs");
        if (newest.isEmpty())
            throw new ClientException(404, "job_not_found", "project " + project + " has no jobs yet");
        return newest.get(0).path("uuid").asText();
    }

    @Command(
            name = "get",
            description = "Show a job: its status, why it waits, and its report's metrics once processed.")
    static final class Get extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "JOB", description = "job UUID, or 'latest' for the project's newest job")
        String job;

        private ApiClient api;

        @Override
        JsonNode call(ApiClient api) {
            this.api = api;
            return api.get("/v0/projects/" + seg(project) + "/jobs/" + seg(resolve(api, project, job)));
        }

        @Override
        void human(JsonNode j, PrintWriter out) {
            Table t = new Table("FIELD", "VALUE");
            t.row("job", j.path("uuid").asText());
            t.row(
                    "status",
                    JobStatusText.describe(j, null, null, environment().clock().instant()));
            if (j.hasNonNull("error")) t.row("error", j.get("error").asText());
            t.row("report", j.path("report").asText());
            t.row("spec", Output.text(j.get("spec")));
            t.row("runner", Output.text(j.get("runner")));
            t.row("attempt", j.path("attempt").asText());
            t.row("command", Output.words(j.path("config").get("cmd")));
            t.row("image", Output.text(j.path("config").get("digest")));
            t.row("created", Output.text(j.get("created")));
            t.row("started", Output.text(j.get("started")));
            t.row("completed", Output.text(j.get("completed")));
            t.print(out);
            JsonNode declines = j.path("pending_reason").path("declines");
            for (JsonNode d : declines) {
                out.println("declined by " + d.path("runner").asText() + ": "
                        + d.path("code").asText() + " " + d.path("reason").asText(""));
            }
            AttemptsText.print(api, j.get("attempts"), out);
            MachineText.print("machine the job ran on", j.get("fingerprint"), out);
            String status = j.path("status").asText();
            if (status.equals("processed") || status.equals("completed")) {
                out.println();
                Metrics.print(
                        api.get("/v0/projects/" + seg(project) + "/reports/"
                                + seg(j.path("report").asText())),
                        out);
            }
        }
    }

    @Command(
            name = "logs",
            description = {
                "Print a job's log (its stdout on stdout, its stderr on stderr).",
                "With -f, follow it live until the job ends (reconnecting without gaps)."
            })
    static final class Logs extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Option(
                names = {"-f", "--follow"},
                description = "keep printing as the job writes, until it ends")
        boolean follow;

        @Option(
                names = "--reconnect-for",
                converter = dev.baton.cli.runner.UpCommand.DurationConverter.class,
                defaultValue = "30s",
                description = "how long to retry an unreachable server while following (default ${DEFAULT-VALUE})")
        Duration reconnectFor;

        @Parameters(paramLabel = "JOB", description = "job UUID, or 'latest' for the project's newest job")
        String job;

        @Override
        public Integer call() {
            try {
                return super.call();
            } catch (ClientException e) {
                if (!"route_not_found".equals(e.code())) throw e;
                throw new ClientException(
                        e.status(),
                        e.code(),
                        "this server has no live logs (it predates them); the job's output is in"
                                + " 'baton jobs get --json --project " + project + " " + job + "' once it has ended");
            }
        }

        /** Prints the log as it reads it (pages, or the live stream with -f); nothing is left to print after. */
        @Override
        JsonNode call(ApiClient api) {
            job = resolve(api, project, job);
            print(api, spec.commandLine().getErr());
            return null;
        }

        private void print(ApiClient api, PrintWriter err) {
            if (follow) {
                LogPrinter printer = new LogPrinter(out(), err);
                LogFollower follower = new LogFollower(
                        api, project, job, reconnectFor, environment().clock());
                try {
                    String end = follower.follow(json ? e -> Output.jsonLine(out(), e) : printer::accept);
                    if (!json) note("baton: job " + job + " ended: " + end);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            long after = 0;
            JsonNode page;
            com.fasterxml.jackson.databind.node.ArrayNode all =
                    dev.baton.protocol.message.Wire.mapper().createArrayNode();
            LogPrinter printer = new LogPrinter(out(), err);
            do {
                page = LogFollower.page(api, project, job, after);
                for (JsonNode entry : page.path("entries")) {
                    if (json) all.add(entry);
                    else printer.accept(entry);
                }
                long next = page.path("next").asLong(after);
                if (next <= after || page.path("entries").isEmpty()) break;
                after = next;
            } while (true);
            if (json) {
                com.fasterxml.jackson.databind.node.ObjectNode whole = page.deepCopy();
                whole.set("entries", all);
                Output.json(out(), whole);
            }
        }
    }

    @Command(name = "cancel", description = "Cancel a pending, claimed or running job.")
    static final class Cancel extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "JOB")
        String job;

        @Override
        JsonNode call(ApiClient api) {
            return api.post("/v0/projects/" + seg(project) + "/jobs/" + seg(job) + "/cancel", null);
        }

        @Override
        void human(JsonNode j, PrintWriter out) {
            out.println(
                    "Job " + j.path("uuid").asText() + " is " + j.path("status").asText() + ".");
        }
    }
}

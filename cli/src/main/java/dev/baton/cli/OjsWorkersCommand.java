package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code baton ojs workers}: every OJS worker that registered or beat, as {@code GET /ojs/v1/workers}
 * lists it (issue 47); its subcommands show one and direct one or a queue's workers.
 */
@Command(
        name = "workers",
        mixinStandardHelpOptions = true,
        description = "List OJS workers: state, the operator's direction, host, pid, last heartbeat, jobs held.",
        subcommands = {
            OjsWorkersCommand.Show.class,
            OjsWorkerDirection.Quiet.class,
            OjsWorkerDirection.Terminate.class,
            OjsWorkerDirection.Resume.class
        })
final class OjsWorkersCommand extends ClientCommand {
    @Override
    JsonNode call(ApiClient api) {
        return api.get("/ojs/v1/workers");
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        Table table = new Table(
                "ID", "QUEUES", "STATE", "DIRECTED", "HOST", "PID", "LAST_HEARTBEAT", "ACTIVE_JOBS", "REGISTERED");
        for (JsonNode w : answer.path("workers")) {
            table.row(
                    Output.text(w.get("worker_id")),
                    Output.text(w.get("queues")),
                    Output.text(w.get("state")),
                    Output.text(w.get("directed_state")),
                    Output.text(w.get("hostname")),
                    Output.text(w.get("pid")),
                    Output.text(w.get("last_beat_at")),
                    Output.text(w.get("active_jobs")),
                    Output.text(w.get("registered")));
        }
        if (table.isEmpty()) out.println("(none)");
        else table.print(out);
    }

    @Command(name = "show", description = "Show one OJS worker: what it registered, its state and the jobs it holds.")
    static final class Show extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "the worker's id")
        String worker;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/ojs/v1/workers/" + seg(worker));
        }

        @Override
        void human(JsonNode answer, PrintWriter out) {
            Output.fields(out, answer.path("worker"));
        }
    }
}

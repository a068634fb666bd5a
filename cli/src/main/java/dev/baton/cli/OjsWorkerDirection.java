package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton ojs workers quiet|terminate|resume}: an operator's direction to one OJS worker or,
 * with {@code --queue}, to every worker of a queue (issue 47). The worker reads it in its next
 * heartbeat's answer; the server audits it.
 */
abstract class OjsWorkerDirection extends ClientCommand {
    @Parameters(paramLabel = "ID", arity = "0..1", description = "the worker's id (or --queue)")
    String worker;

    @Option(
            names = "--queue",
            paramLabel = "NAME",
            description = "direct every worker not terminated that consumes NAME")
    String queue;

    /** The route's last segment: quiet, terminate or resume. */
    abstract String direction();

    /** What a person reads: the state the workers are now told. */
    abstract String told();

    @Override
    JsonNode call(ApiClient api) {
        if ((worker == null) == (queue == null)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "name a worker ID or --queue NAME (one of them)");
        }
        if (queue != null) return api.post("/ojs/v1/queues/" + seg(queue) + "/workers/" + direction(), null);
        return api.post("/ojs/v1/workers/" + seg(worker) + "/" + direction(), null);
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        if (queue == null) {
            out.println("OJS worker " + worker + " told to " + told() + " (in its next heartbeat's answer).");
            return;
        }
        JsonNode ids = answer.path("workers");
        if (ids.isEmpty()) {
            out.println("No OJS worker of queue " + queue + " to tell (none registered it, or all are terminated).");
            return;
        }
        StringBuilder names = new StringBuilder();
        for (JsonNode id : ids) names.append(names.isEmpty() ? "" : ", ").append(id.asText());
        out.println(ids.size() + " OJS worker(s) of queue " + queue + " told to " + told() + ": " + names + ".");
    }

    @Command(
            name = "quiet",
            description = "Tell an OJS worker (or a queue's) to finish its jobs and fetch no new ones.")
    static final class Quiet extends OjsWorkerDirection {
        @Override
        String direction() {
            return "quiet";
        }

        @Override
        String told() {
            return "quiet";
        }
    }

    @Command(name = "terminate", description = "Tell an OJS worker (or a queue's) to stop and shut down.")
    static final class Terminate extends OjsWorkerDirection {
        @Override
        String direction() {
            return "terminate";
        }

        @Override
        String told() {
            return "terminate";
        }
    }

    @Command(name = "resume", description = "Withdraw the direction given to an OJS worker (or a queue's).")
    static final class Resume extends OjsWorkerDirection {
        @Override
        String direction() {
            return "resume";
        }

        @Override
        String told() {
            return "run (direction withdrawn)";
        }
    }
}

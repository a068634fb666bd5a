package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton runners drain}: seed 002's server-directed quiet (finish the jobs in hand, take no
 * new ones) or terminate, sent over the runner's open channel by {@code POST /v0/runners/{r}/drain}.
 */
@Command(
        name = "drain",
        description = {
            "Tell a connected runner to take no new jobs and finish the ones it has (quiet);",
            "with --terminate, to stop its jobs and shut down. 'baton runners resume' undoes a quiet drain."
        })
final class RunnersDrain extends ClientCommand {
    @Parameters(paramLabel = "RUNNER", description = "UUID or slug")
    String runner;

    @Option(
            names = "--terminate",
            description = "stop the runner's jobs and shut the agent down instead of letting them finish")
    boolean terminate;

    @Override
    JsonNode call(ApiClient api) {
        return api.post("/v0/runners/" + seg(runner) + "/drain", Map.of("state", terminate ? "terminate" : "quiet"));
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        out.println("Runner " + runner + " told to " + (terminate ? "terminate" : "drain (quiet)") + " (through node "
                + answer.path("node").asText() + ").");
    }
}

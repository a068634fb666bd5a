package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code baton runners resume}: the drain directive's {@code running} state, so a quiet runner takes jobs again. */
@Command(name = "resume", description = "Let a drained (quiet) runner take jobs again.")
final class RunnersResume extends ClientCommand {
    @Parameters(paramLabel = "RUNNER", description = "UUID or slug")
    String runner;

    @Override
    JsonNode call(ApiClient api) {
        return api.post("/v0/runners/" + seg(runner) + "/drain", Map.of("state", "running"));
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        out.println("Runner " + runner + " told to resume (through node "
                + answer.path("node").asText() + ").");
    }
}

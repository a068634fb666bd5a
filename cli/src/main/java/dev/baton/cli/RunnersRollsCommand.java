package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code baton runners rolls [ROLL]}: the recent fleet upgrades, or one with each runner's step (issue 41). */
@Command(
        name = "rolls",
        description = "List recent fleet upgrades ('runners update'), or show one with each runner's step.")
final class RunnersRollsCommand extends ClientCommand {
    @Parameters(index = "0", arity = "0..1", paramLabel = "ROLL", description = "a roll's UUID")
    String roll;

    @Override
    JsonNode call(ApiClient api) {
        return roll == null ? api.get("/v0/rolls") : api.get("/v0/rolls/" + seg(roll));
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        if (roll == null) {
            Output.list(out, answer, "uuid", "state", "target", "version", "created", "ended", "reason");
            return;
        }
        Output.fields(out, answer);
        out.println();
        Output.list(out, answer.get("runners"), "runner", "state", "from_version", "started", "ended", "message");
    }
}

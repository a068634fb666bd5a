package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.runner.UpCommand.DurationConverter;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton runners update}: upgrades runners one after the other (issue 41). The server drives
 * the roll ({@code POST /v0/rolls}); this command starts it and prints each runner's progress as it
 * polls the roll, until it ends. Exit 0 when every runner rejoined at the version (or already ran it),
 * 3 when the roll failed (a runner did not come back: the message names it).
 */
@Command(
        name = "update",
        description = {
            "Upgrade runners one after the other: drain each, tell it to update, wait until it",
            "rejoins at the new version, resume it, next. Stops at a runner that does not come back (exit 3)."
        })
final class RunnersUpdateCommand extends ClientCommand {
    static final class Target {
        @Option(names = "--all", required = true, description = "every runner that is not archived")
        boolean all;

        @Option(
                names = "--spec",
                required = true,
                paramLabel = "SPEC",
                description = "the runners that serve this spec")
        String spec;

        @Option(names = "--runner", required = true, paramLabel = "RUNNER", description = "this runner only")
        String runner;
    }

    /** Its own help option: the standard mixin would also add {@code --version}, which here names the version to roll to. */
    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help message and exit.")
    boolean help;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    @Option(
            names = "--version",
            paramLabel = "V",
            description = "the version to run (default: the one this server ships)")
    String version;

    @Option(names = "--url", required = true, description = "where runners download the runner jar of that version")
    String url;

    @Option(names = "--checksum", required = true, description = "the jar's SHA-256 (64 hex digits)")
    String checksum;

    @Option(
            names = "--max-unavailable",
            paramLabel = "N",
            defaultValue = "1",
            description = "runners updating at once (default 1)")
    int maxUnavailable;

    @Option(
            names = "--timeout",
            converter = DurationConverter.class,
            defaultValue = "10m",
            description = "how long each runner has to rejoin at the new version (default 10m; cover its longest job)")
    Duration timeout;

    @Option(names = "--detach", description = "start the roll and return; see it with 'baton runners rolls ROLL'")
    boolean detach;

    @Option(names = "--poll-interval", converter = DurationConverter.class, defaultValue = "2s", hidden = true)
    Duration pollInterval;

    /** Starts the roll and, unless detached, polls it until it ends; the roll as it ended (or as it started). */
    @Override
    JsonNode call(ApiClient api) {
        Map<String, Object> body = new HashMap<>();
        if (target.all) body.put("all", true);
        if (target.spec != null) body.put("spec", target.spec);
        if (target.runner != null) body.put("runner", target.runner);
        if (version != null) body.put("version", version);
        body.put("url", url);
        body.put("checksum", checksum);
        body.put("max_unavailable", maxUnavailable);
        body.put("rejoin_timeout_seconds", Math.max(1, timeout.toSeconds()));
        JsonNode roll = api.post("/v0/rolls", body);
        String id = roll.get("uuid").asText();
        note("Roll " + id + ": " + roll.get("runners").size() + " runner(s) to version "
                + roll.get("version").asText() + ", "
                + roll.get("max_unavailable").asInt() + " at a time.");
        Map<String, String> seen = new LinkedHashMap<>();
        PrintWriter err = spec.commandLine().getErr();
        progress(roll, seen, err);
        while (!detach && "running".equals(roll.get("state").asText())) {
            try {
                Thread.sleep(pollInterval);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                note("Stopped watching; the roll goes on: baton runners rolls " + id);
                return roll;
            }
            roll = api.get("/v0/rolls/" + seg(id));
            progress(roll, seen, err);
        }
        return roll;
    }

    @Override
    public Integer call() {
        JsonNode roll = call(connection.client());
        if (json) Output.json(out(), roll);
        String id = roll.get("uuid").asText();
        String state = roll.get("state").asText();
        if ("failed".equals(state)) {
            note("Roll " + id + " failed: " + roll.get("reason").asText());
            return ExitCodes.JOB_FAILED;
        }
        if (!json) {
            out().println("Roll " + id + " " + state
                    + ("running".equals(state) ? "; see it with 'baton runners rolls " + id + "'" : "") + ".");
            out().flush();
        }
        return ExitCodes.OK;
    }

    /** One line per runner whose step changed since the last poll. */
    private static void progress(JsonNode roll, Map<String, String> seen, PrintWriter err) {
        for (JsonNode step : roll.get("runners")) {
            String runner = step.get("runner").asText();
            String line = step.get("state").asText()
                    + (step.hasNonNull("message") ? ": " + step.get("message").asText() : "");
            if (line.equals(seen.put(runner, line))) continue;
            err.println("  " + runner + " " + line);
        }
        err.flush();
    }
}

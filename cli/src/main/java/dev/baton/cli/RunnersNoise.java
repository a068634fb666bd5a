package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.runner.UpCommand.DurationConverter;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton runners noise}: asks a connected, idle runner to measure its noise now ({@code POST
 * /v0/runners/{r}/noise}, decision 0062) and, with {@code --wait}, waits for the new calibration
 * and prints each figure's coefficient of variation. Without {@code --wait}, the figures shown are
 * the runner's latest until the new one arrives.
 */
@Command(
        name = "noise",
        description = {
            "Ask a connected, idle runner to measure its noise now (a CPU loop, a memory walk, file I/O);",
            "with --wait, wait for the new calibration and print each figure's coefficient of variation."
        })
final class RunnersNoise extends ClientCommand {
    @Parameters(paramLabel = "RUNNER", description = "UUID or slug")
    String runner;

    @Option(names = "--wait", description = "wait for the new calibration and print it")
    boolean await;

    @Option(
            names = "--timeout",
            converter = DurationConverter.class,
            defaultValue = "15m",
            description = "with --wait, how long to wait for it (default 15m; exit 5 after)")
    Duration timeout;

    @Option(names = "--poll-interval", converter = DurationConverter.class, defaultValue = "2s", hidden = true)
    Duration pollInterval;

    /** Whether the calibration waited for arrived (false: timed out). */
    private boolean arrived = true;

    @Override
    JsonNode call(ApiClient api) {
        JsonNode asked = api.post("/v0/runners/" + seg(runner) + "/noise", Map.of());
        note("Runner " + runner + " asked to measure its noise (through node "
                + asked.path("node").asText()
                + "); it measures once its wait for a job ends, taking no job meanwhile.");
        if (!await) return api.get("/v0/runners/" + seg(runner));
        String previous =
                asked.path("previous").isTextual() ? asked.path("previous").asText() : null;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JsonNode found = api.get("/v0/runners/" + seg(runner));
            JsonNode measured = found.path("noise").path("measured");
            if (measured.isTextual() && !measured.asText().equals(previous)) return found;
            if (System.nanoTime() - deadline > 0) {
                arrived = false;
                return found;
            }
            try {
                Thread.sleep(pollInterval);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                arrived = false;
                return found;
            }
        }
    }

    @Override
    public Integer call() {
        Integer status = super.call();
        if (!arrived) {
            note("No new calibration of runner " + runner + " within " + timeout.toSeconds()
                    + " s; it may still come: baton runners get " + runner);
            return ExitCodes.WAIT_TIMEOUT;
        }
        return status;
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        figures(answer.path("slug").asText(runner), answer.path("noise"), out);
    }

    /** The calibration's figures, one line each with its CV in %, and the flag when it is raised. */
    static void figures(String runner, JsonNode noise, PrintWriter out) {
        if (noise.isMissingNode() || noise.isNull()) {
            out.println("Runner " + runner + " has no noise calibration yet.");
            return;
        }
        out.println("Runner " + runner + " measured " + noise.path("measured").asText() + " ("
                + noise.path("repetitions").asInt() + " repetitions each):");
        Table table = new Table("FIGURE", "CV");
        for (String figure : new String[] {"cpu", "memory", "file"}) {
            JsonNode cv = noise.path(figure + "_cv");
            if (cv.isNumber()) table.row(figure, percent(cv.asDouble()));
        }
        table.row("largest", percent(noise.path("cv").asDouble()));
        table.print(out);
        if (noise.path("noisy").asBoolean())
            out.println("noisy: its noise rose past its own history (api.md, \"Runner noise\")");
    }

    static String percent(double cv) {
        return String.format(Locale.ROOT, "%.2f%%", 100 * cv);
    }
}

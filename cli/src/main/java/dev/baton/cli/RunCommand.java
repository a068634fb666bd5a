package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.runner.UpCommand.DurationConverter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code baton run}: submit a run. With --spec a runner executes it: the words after {@code --}
 * become its cmd, --image names the image (optional for runners with the process executor). With
 * --results the given BMF files are stored at once. --wait follows the job to its end.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Submit a run (runner mode: --spec, --image and/or a command after --; direct mode: --results).",
            "With --wait, follow the job until it ends and print its metrics; exit 0 processed, 3 failed, 4 canceled,"
                + " 5 --wait-timeout passed, 6 server lost, 130 detached (Ctrl-C)."})
final class RunCommand extends ClientCommand {
    @Option(names = "--project", required = true, description = "project UUID or slug") String project;
    @Option(names = "--image", description = "image digest sha256:… or a tag of the project's repository (optional for process-executor runners)") String image;
    @Option(names = "--spec", description = "spec UUID or slug") String specRef;
    @Option(names = "--timeout", description = "the job's own time limit in seconds (default 3600); see --wait-timeout for how long to wait") Integer timeout;
    @Option(names = "--iterations", description = "1-100 (default 1)") Integer iterations;
    @Option(names = "--entrypoint", description = "entrypoint override; repeat for each word") List<String> entrypoint;
    @Option(names = "--env", description = "NAME=VALUE; repeatable") Map<String, String> env;
    @Option(names = "--file-path", description = "file to collect after the run; repeatable") List<String> filePaths;
    @Option(names = "--branch") String branch;
    @Option(names = "--testbed") String testbed;
    @Option(names = "--adapter", description = "how output becomes metrics (default json)") String adapter;
    @Option(names = "--results", description = "BMF JSON file (direct mode); repeatable") List<Path> results;
    @Option(names = "--start-time", description = "ISO-8601 (direct mode)") String startTime;
    @Option(names = "--end-time", description = "ISO-8601 (direct mode)") String endTime;
    @Option(names = "--wait", description = "follow the job until it ends: a live status line, then its metrics") boolean wait;
    @Option(names = "--logs", description = "with --wait (implied): stream the job's log instead of the status line") boolean logs;
    @Option(names = "--wait-timeout", converter = DurationConverter.class,
            description = "stop waiting after this long (e.g. 90s, 10m) and exit 5; the job goes on") Duration waitTimeout;
    @Option(names = "--reconnect-for", converter = DurationConverter.class, defaultValue = "30s",
            description = "how long to keep retrying an unreachable server before exit 6 (default ${DEFAULT-VALUE})") Duration reconnectFor;
    @Option(names = "--poll-interval", converter = DurationConverter.class, defaultValue = "500ms", hidden = true) Duration pollInterval;
    @Parameters(paramLabel = "CMD", description = "command for the job (after --)") List<String> cmd;

    @Override
    public Integer call() {
        ApiClient api = connection.client();
        JsonNode submitted = call(api);
        boolean follow = (wait || logs) && submitted.path("job").isObject();
        if (!follow) {
            if (json) Output.json(out(), submitted);
            else human(submitted, out());
            return ExitCodes.OK;
        }
        String job = submitted.at("/job/uuid").asText();
        String report = submitted.at("/report/uuid").asText();
        PrintWriter err = spec.commandLine().getErr();
        if (!json) {
            err.println("Submitted job " + job + " (report " + report + ").");
            err.flush();
        }
        JobWatch watch = new JobWatch(api, project, job, report, environment(), out(), err,
                new JobWatch.Settings(logs, json, waitTimeout, reconnectFor, pollInterval));
        SignalHandler previous = onInterrupt(watch);
        try {
            return watch.run();
        } finally {
            if (previous != null) Signal.handle(new Signal("INT"), previous);
        }
    }

    /** Ctrl-C asks the watch to stop (it asks cancel or detach) instead of ending the JVM; null when signals cannot be handled. */
    private static SignalHandler onInterrupt(JobWatch watch) {
        try {
            return Signal.handle(new Signal("INT"), s -> watch.interrupt());
        } catch (IllegalArgumentException e) {
            return null; // a JVM started with -Xrs: Ctrl-C ends it as usual
        }
    }

    @Override
    JsonNode call(ApiClient api) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("project", project);
        put(body, "image", image);
        put(body, "spec", specRef);
        put(body, "timeout", timeout);
        put(body, "iterations", iterations);
        put(body, "entrypoint", entrypoint);
        put(body, "cmd", cmd);
        put(body, "env", env == null ? null : new HashMap<>(env));
        put(body, "file_paths", filePaths);
        put(body, "branch", branch);
        put(body, "testbed", testbed);
        put(body, "adapter", adapter);
        put(body, "start_time", startTime);
        put(body, "end_time", endTime);
        if (results != null) {
            List<String> docs = new ArrayList<>();
            for (Path p : results) {
                try {
                    docs.add(Files.readString(p));
                } catch (IOException e) {
                    throw new ClientException("cannot read " + p + ": " + e.getMessage());
                }
            }
            body.put("results", docs);
        }
        return api.post("/v0/run", body);
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        JsonNode job = answer.path("job");
        JsonNode report = answer.path("report");
        if (job.isObject()) {
            out.println("Submitted job " + job.path("uuid").asText() + " (report " + report.path("uuid").asText() + "): "
                    + job.path("status").asText() + ".");
            out.println("Follow it: baton jobs get --project " + project + " " + job.path("uuid").asText()
                    + "   (or submit with --wait next time)");
        } else {
            out.println("Stored report " + report.path("uuid").asText() + ".");
            Metrics.print(report, out);
        }
        out.flush();
    }

    private static void put(Map<String, Object> body, String key, Object value) {
        if (value != null) body.put(key, value);
    }
}

package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.runner.UpCommand.DurationConverter;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton jobs rerun JOB}: submits the job again with its configuration
 * ({@code POST /v0/projects/{p}/jobs/{j}/rerun}) and prints the new job's id; with --wait it
 * follows the new job as {@code baton run --wait} does, with the same exit codes.
 */
@Command(
        name = "rerun",
        description = {
            "Submit a job again with the same configuration (image by digest, spec, command,"
                    + " environment, files, iterations, timeouts, labels, retry policy); prints the new job.",
            "With --wait, follow the new job until it ends: exit 0 processed, 3 failed, 4 canceled,"
                    + " 5 --wait-timeout passed, 6 server lost."
        })
final class RerunCommand extends ClientCommand {
    @Option(names = "--project", required = true)
    String project;

    @Parameters(paramLabel = "JOB", description = "job UUID, or 'latest' for the project's newest job")
    String job;

    @Option(names = "--wait", description = "follow the new job until it ends: a live status line, then its metrics")
    boolean wait;

    @Option(
            names = "--wait-timeout",
            converter = DurationConverter.class,
            description = "stop waiting after this long (e.g. 90s, 10m) and exit 5; the job goes on")
    Duration waitTimeout;

    @Option(
            names = "--reconnect-for",
            converter = DurationConverter.class,
            defaultValue = "30s",
            description = "how long to keep retrying an unreachable server before exit 6 (default ${DEFAULT-VALUE})")
    Duration reconnectFor;

    @Option(names = "--poll-interval", converter = DurationConverter.class, defaultValue = "500ms", hidden = true)
    Duration pollInterval;

    @Override
    public Integer call() {
        if (!wait) return super.call();
        ApiClient api = connection.client();
        JsonNode submitted = call(api);
        String newJob = submitted.at("/job/uuid").asText();
        if (!json) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("Submitted job " + newJob + " (a re-run of " + job + ").");
            err.flush();
        }
        JobWatch.Settings settings = new JobWatch.Settings(false, json, waitTimeout, reconnectFor, pollInterval);
        String report = submitted.at("/report/uuid").asText();
        return new JobWatch(
                        api,
                        project,
                        newJob,
                        report,
                        environment(),
                        out(),
                        spec.commandLine().getErr(),
                        settings)
                .run();
    }

    @Override
    JsonNode call(ApiClient api) {
        job = JobsCommand.resolve(api, project, job);
        return api.post("/v0/projects/" + seg(project) + "/jobs/" + seg(job) + "/rerun", null);
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        out.println("Submitted job " + answer.at("/job/uuid").asText() + " (a re-run of " + job + ", report "
                + answer.at("/report/uuid").asText() + ").");
    }
}

package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.runner.UpCommand.DurationConverter;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code baton run}: submit a run. With --spec a runner executes it: the words after {@code --}
 * become its cmd, --image names the image (optional for runners with the process executor). With
 * --results the given BMF files are stored at once. --wait follows the job to its end.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Submit a run (runner mode: --spec, --image and/or a command after --; direct mode: --results).",
            "With --wait, follow the job until it ends and print its metrics; exit 0 processed, 3 failed, 4 canceled,"
                    + " 5 --wait-timeout passed, 6 server lost, 8 an alert was raised (with --fail-on-alert) or a paired run's"
                    + " candidate is slower (with --fail-on-regression), 130 detached (Ctrl-C)."
        })
final class RunCommand extends ClientCommand {
    @Mixin
    RunOptions run;

    @Option(names = "--wait", description = "follow the job until it ends: a live status line, then its metrics")
    boolean wait;

    @Option(names = "--logs", description = "with --wait (implied): stream the job's log instead of the status line")
    boolean logs;

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

    @Option(
            names = "--fail-on-alert",
            description = "exit 8 when a threshold raised an alert on the run's report (the job itself succeeded)")
    boolean failOnAlert;

    @Option(
            names = "--fail-on-regression",
            description = "with --baseline and --wait: exit 8 when the paired verdict calls a metric slower")
    boolean failOnRegression;

    @Option(names = "--poll-interval", converter = DurationConverter.class, defaultValue = "500ms", hidden = true)
    Duration pollInterval;

    @Override
    public Integer call() {
        ApiClient api = connection.client();
        JsonNode submitted = call(api);
        boolean follow = (wait || logs) && submitted.path("job").isObject();
        if (!follow) {
            if (json) Output.json(out(), submitted);
            else human(submitted, out());
            return alertExit(submitted.path("report"));
        }
        String job = submitted.at("/job/uuid").asText();
        String report = submitted.at("/report/uuid").asText();
        PrintWriter err = spec.commandLine().getErr();
        if (!json) {
            err.println("Submitted job " + job + " (report " + report + ").");
            err.flush();
        }
        JobWatch watch = new JobWatch(
                api,
                run.project,
                job,
                report,
                environment(),
                out(),
                err,
                new JobWatch.Settings(logs, json, waitTimeout, reconnectFor, pollInterval));
        // Ctrl-C asks the watch to stop (it asks cancel or detach) instead of ending the JVM; under -Xrs
        // the JVM refuses the handler and Ctrl-C ends it as usual.
        Optional<OsSignal> interrupt = OsSignal.tryHandle("INT", watch::interrupt);
        try {
            int code = watch.run();
            if (code != ExitCodes.OK) return code;
            int alert = alertExit(watch.finalReport());
            return alert != ExitCodes.OK ? alert : regressionExit(watch.finalReport());
        } finally {
            interrupt.ifPresent(OsSignal::restore);
        }
    }

    /** OK, or with --fail-on-alert {@link ExitCodes#ALERT} (saying why) when judging raised an alert on the report. */
    private int alertExit(JsonNode report) {
        if (!failOnAlert || !Alerts.raised(report)) return ExitCodes.OK;
        int n = report.path("alerts").size();
        List<String> groups = Alerts.groups(report);
        PrintWriter err = spec.commandLine().getErr();
        err.println("baton: " + n + (n == 1 ? " alert was" : " alerts were") + " raised on report "
                + report.path("uuid").asText()
                + (groups.isEmpty()
                        ? ""
                        : ", " + groups.size() + (groups.size() == 1 ? " group " : " groups ")
                                + String.join(", ", groups))
                + " (--fail-on-alert)");
        err.flush();
        return ExitCodes.ALERT;
    }

    /** OK, or with --fail-on-regression {@link ExitCodes#ALERT} (saying why) when a paired verdict says slower. */
    private int regressionExit(JsonNode report) {
        if (!failOnRegression || !PairedText.regression(report)) return ExitCodes.OK;
        PrintWriter err = spec.commandLine().getErr();
        err.println(
                "baton: the candidate is slower than the baseline on " + String.join(", ", PairedText.slower(report))
                        + " (report " + report.path("uuid").asText() + ", --fail-on-regression)");
        err.flush();
        return ExitCodes.ALERT;
    }

    @Override
    JsonNode call(ApiClient api) {
        // The pull or merge request of the CI job (docs/pull-requests.md), unless given.
        if (run.githubPr == null && run.gitlabMr == null) {
            run.githubPr = CiReview.githubPr(environment().env());
            run.gitlabMr = CiReview.gitlabMr(environment().env());
        }
        return api.post("/v0/run", run.body());
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        JsonNode job = answer.path("job");
        JsonNode report = answer.path("report");
        if (job.isObject()) {
            out.println("Submitted job " + job.path("uuid").asText() + " (report "
                    + report.path("uuid").asText() + "): " + job.path("status").asText() + ".");
            out.println("Follow it: baton jobs get --project " + run.project + " "
                    + job.path("uuid").asText() + "   (or submit with --wait next time)");
        } else {
            out.println("Stored report " + report.path("uuid").asText() + ".");
            Metrics.print(report, out);
            Alerts.print(report, out);
        }
        out.flush();
    }
}

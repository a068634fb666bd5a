package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.message.Wire;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code run --wait}: follows one job to its end and turns the end into an exit status
 * ({@link ExitCodes}) and one line that says why. Polls the job (its status, queue position,
 * pending reason), shows the last log line or, with {@code --logs}, the whole live log, and prints
 * the report's metrics once the job is processed.
 */
final class JobWatch {
    /** How to wait: stream the log, give up after {@code timeout} (null: never), tolerate the server's absence for {@code reconnectFor}. */
    record Settings(boolean logs, boolean json, Duration timeout, Duration reconnectFor, Duration pollEvery) {}

    private final ApiClient api;
    private final String project;
    private final String job;
    private final String report;
    /** The report as the job ended with it, once processed or left with an error. */
    private volatile JsonNode finalReport;

    private final CliEnvironment env;
    private final PrintWriter out;
    private final PrintWriter err;
    private final Settings settings;
    private final Map<String, String> runnerNames = new HashMap<>();
    private final LogPrinter tail = LogPrinter.silent();
    private volatile boolean interruptRequested;
    private volatile Thread watcher;
    private boolean logsUnavailable;
    private long logNext;

    JobWatch(
            ApiClient api,
            String project,
            String job,
            String report,
            CliEnvironment env,
            PrintWriter out,
            PrintWriter err,
            Settings settings) {
        this.api = api;
        this.project = project;
        this.job = job;
        this.report = report;
        this.env = env;
        this.out = out;
        this.err = err;
        this.settings = settings;
    }

    /** Ctrl-C (from a signal handler or a test): the watcher stops and asks whether to cancel or detach. */
    void interrupt() {
        interruptRequested = true;
        Thread t = watcher;
        if (t != null) t.interrupt();
    }

    int run() {
        watcher = Thread.currentThread();
        Instant begun = env.clock().instant();
        Instant deadline = settings.timeout() == null ? null : begun.plus(settings.timeout());
        Instant lastAnswer = begun;
        boolean quiet = settings.json();
        StatusLine line = new StatusLine(err, env.terminal() && !settings.logs() && !quiet, terminalWidth());
        Thread follower = settings.logs() && !quiet ? startFollower() : null;
        JsonNode current = null;
        try {
            while (true) {
                if (interruptRequested) {
                    line.finish();
                    Integer detached = askCancelOrDetach(current);
                    if (detached != null) return detached;
                }
                Integer end;
                try {
                    current = api.get(jobPath());
                    lastAnswer = env.clock().instant();
                    end = ended(current.path("status").asText(), current, line, follower);
                } catch (ServerUnreachableException e) {
                    if (interruptRequested) continue;
                    if (Duration.between(lastAnswer, env.clock().instant()).compareTo(settings.reconnectFor()) >= 0) {
                        line.finish();
                        return fail(
                                ExitCodes.LOST_SERVER,
                                "lost the server while waiting for job " + job + " (" + e.getMessage()
                                        + "); the job may still run: " + followHint());
                    }
                    pause();
                    continue;
                } catch (ClientException e) {
                    if (interruptRequested) continue;
                    throw e;
                }
                if (end != null) return end;
                String status = current.path("status").asText();
                if (!quiet) {
                    if (status.equals("running") && follower == null) pollLogTail();
                    String runner = runnerName(current);
                    String text = JobStatusText.describe(
                            current, runner, tail.lastLine(), env.clock().instant());
                    line.show(settings.logs() ? "baton: job " + job + " is " + text : text, key(current, runner));
                }
                if (deadline != null && !env.clock().instant().isBefore(deadline)) {
                    line.finish();
                    String why = current.path("pending_reason").path("message").asText("");
                    return fail(
                            ExitCodes.WAIT_TIMEOUT,
                            "gave up waiting after " + JobStatusText.duration(settings.timeout()) + ": job " + job
                                    + " is still " + status + (why.isEmpty() ? "" : " (" + why + ")") + "; it goes on: "
                                    + followHint());
                }
                pause();
            }
        } finally {
            if (follower != null) follower.interrupt();
            watcher = null;
            Thread.interrupted();
        }
    }

    /** The report the job ended with (its metrics, boundaries and alerts); null until then. */
    JsonNode finalReport() {
        return finalReport;
    }

    /** The exit status when the job has ended (after printing why), or null while it goes on. */
    private Integer ended(String status, JsonNode current, StatusLine line, Thread follower) {
        switch (status) {
            case "processed", "completed" -> {
                JsonNode rep = api.get("/v0/projects/" + ApiClient.seg(project) + "/reports/" + ApiClient.seg(report));
                // completed is also the moment between the runner's result and its processing;
                // it is an end only when the report says the output could not be read.
                if (status.equals("completed") && !rep.hasNonNull("error")) return null;
                // Processed, but the project's thresholds have not judged it yet (a moment later, off the processing
                // thread).
                if (status.equals("processed")
                        && rep.has("judged")
                        && !rep.path("judged").asBoolean()) return null;
                finalReport = rep;
                line.finish();
                awaitLog(follower);
                if (settings.json()) {
                    ObjectNode both = Wire.mapper().createObjectNode();
                    both.set("job", current);
                    both.set("report", rep);
                    Output.json(out, both);
                } else {
                    out.println("Job " + job + " " + status + ranFor(current) + ".");
                    // After a retry, which attempts failed and why (issue 41).
                    if (current.path("attempts").size() > 1) AttemptsText.print(api, current.get("attempts"), out);
                    if (PairedText.isPaired(rep)) PairedText.print(rep, out);
                    else Metrics.print(rep, out);
                    Alerts.print(rep, out);
                }
                if (rep.hasNonNull("error")) {
                    err.println("baton: job " + job + " ran, but its output could not be read: "
                            + rep.get("error").asText());
                    return ExitCodes.REPORT_ERROR;
                }
                return ExitCodes.OK;
            }
            case "failed" -> {
                line.finish();
                awaitLog(follower);
                if (settings.json()) Output.json(out, current);
                else AttemptsText.print(api, current.get("attempts"), out);
                return fail(
                        ExitCodes.JOB_FAILED,
                        "job " + job + " failed" + ranFor(current) + ": "
                                + current.path("error").asText("no error given"));
            }
            case "canceled" -> {
                line.finish();
                awaitLog(follower);
                if (settings.json()) Output.json(out, current);
                String why = current.path("error").asText("");
                return fail(ExitCodes.JOB_CANCELED, "job " + job + " was canceled" + (why.isEmpty() ? "" : ": " + why));
            }
            default -> {
                return null;
            }
        }
    }

    /** Ctrl-C: at a terminal, ask; otherwise (or on "no") detach and say how to follow the job. Null: keep waiting. */
    private Integer askCancelOrDetach(JsonNode current) {
        interruptRequested = false;
        Thread.interrupted();
        if (env.terminal()) {
            err.print("Cancel job " + job + "? [y/N] (N detaches: the job goes on) ");
            err.flush();
            String answer;
            try {
                answer = env.stdin().readLine();
            } catch (IOException e) {
                answer = null;
            }
            if (answer != null
                    && answer.strip().toLowerCase(java.util.Locale.ROOT).startsWith("y")) {
                try {
                    api.post(jobPath() + "/cancel", null);
                    err.println("baton: canceling job " + job + "…");
                } catch (ClientException e) {
                    err.println("baton: " + e.getMessage());
                }
                err.flush();
                return null;
            }
        }
        String status = current == null ? "" : " (" + current.path("status").asText() + ")";
        err.println("baton: detached from job " + job + status + "; it goes on: " + followHint());
        err.flush();
        return ExitCodes.DETACHED;
    }

    private int fail(int code, String message) {
        err.println("baton: " + message);
        err.flush();
        return code;
    }

    private String followHint() {
        return "follow it with 'baton jobs get --project " + project + " " + job + "' or 'baton jobs logs --project "
                + project + " -f " + job + "'";
    }

    private String jobPath() {
        return "/v0/projects/" + ApiClient.seg(project) + "/jobs/" + ApiClient.seg(job);
    }

    private void pause() {
        try {
            Thread.sleep(settings.pollEvery());
        } catch (InterruptedException e) {
            // Ctrl-C: the loop looks at interruptRequested next
        }
    }

    /** Reads the log entries written since the last poll, for the status line's last line. */
    private void pollLogTail() {
        if (logsUnavailable) return;
        try {
            JsonNode page = LogFollower.page(api, project, job, logNext);
            for (JsonNode entry : page.path("entries")) tail.accept(entry);
            logNext = page.path("next").asLong(logNext);
        } catch (ServerUnreachableException e) {
            // the job poll notices a lost server
        } catch (ClientException e) {
            // a server without live logs (route_not_found): the status line goes without
            logsUnavailable = true;
        }
    }

    private Thread startFollower() {
        LogPrinter printer = new LogPrinter(out, err);
        LogFollower follower = new LogFollower(api, project, job, settings.reconnectFor(), env.clock());
        return Thread.ofPlatform().daemon().name("baton-log-follower").start(() -> {
            try {
                follower.follow(printer::accept);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ClientException e) {
                if (!(e instanceof ServerUnreachableException)) {
                    err.println("baton: no live log (" + e.getMessage() + "); showing the status only");
                    err.flush();
                }
            }
        });
    }

    /** Lets the log follower print the end of the log (the server ends the stream with the job). */
    private static void awaitLog(Thread follower) {
        if (follower == null) return;
        try {
            follower.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String ranFor(JsonNode job) {
        Instant started = JobStatusText.instant(job.get("started"));
        Instant completed = JobStatusText.instant(job.get("completed"));
        if (started == null || completed == null) return "";
        Duration d = Duration.between(started, completed);
        return " (ran " + (d.toSeconds() < 10 ? d.toMillis() + " ms" : JobStatusText.duration(d)) + ")";
    }

    private String runnerName(JsonNode job) {
        String uuid = job.path("runner").asText(null);
        if (uuid == null) return null;
        return runnerNames.computeIfAbsent(uuid, u -> {
            try {
                return api.get("/v0/runners/" + ApiClient.seg(u)).path("slug").asText(u);
            } catch (ClientException e) {
                return u.substring(0, Math.min(8, u.length()));
            }
        });
    }

    /** What must change for a new status line when the line is not rewritten in place. */
    private static String key(JsonNode job, String runner) {
        return job.path("status").asText() + "|" + job.path("queue_position").asText() + "|"
                + job.path("pending_reason").path("code").asText() + "|"
                + job.path("pending_reason").path("message").asText() + "|" + runner;
    }

    private int terminalWidth() {
        try {
            return env.env("COLUMNS") == null ? 100 : Integer.parseInt(env.env("COLUMNS"));
        } catch (NumberFormatException e) {
            return 100;
        }
    }
}

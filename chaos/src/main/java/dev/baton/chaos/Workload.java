package dev.baton.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Submits command-only runs at a steady rate. Each job runs {@link #SCRIPT}, which appends a
 * {@code start} line before its work and an {@code end} line after it to the execution log,
 * with the job's chaos id, its iteration, its working directory (which names the runner's work
 * directory and the job's UUID) and a random nonce that it also prints as its metric, so a
 * stored result can be traced to the one execution that produced it.
 */
final class Workload {
    /** Lines are shorter than PIPE_BUF, so each O_APPEND write lands whole even with many writers. */
    static final String SCRIPT = """
            #!/bin/sh
            # chaos job: $1 = chaos id, $2 = seconds of work
            nonce=$(od -An -N4 -tu4 /dev/urandom | tr -d ' \\n')
            echo "start $1 $BATON_ITERATION $PWD $(date +%s%N) $nonce" >> "$CHAOS_LOG"
            sleep "$2"
            echo "end $1 $BATON_ITERATION $PWD $(date +%s%N) $nonce" >> "$CHAOS_LOG"
            echo "{\\"chaos\\": {\\"nonce\\": {\\"value\\": $nonce}}}"
            """;

    /** What {@link #SCRIPT} prints on stdout, whole, for an execution that drew {@code nonce}. */
    static String printed(long nonce) {
        return "{\"chaos\": {\"nonce\": {\"value\": " + nonce + "}}}\n";
    }

    private final Api api;
    private final Random random;
    private final Path script;
    private final Path executionLog;
    private final List<Submission> submissions = new ArrayList<>();
    private int sequence;

    Workload(Api api, Random random, Path workDir) throws IOException {
        this.api = api;
        this.random = random;
        this.script = Files.writeString(workDir.resolve("job.sh"), SCRIPT);
        this.executionLog = workDir.resolve("executions.log");
        Files.writeString(executionLog, "");
    }

    Path executionLog() {
        return executionLog;
    }

    List<Submission> submissions() {
        return submissions;
    }

    /** Submits at {@code rate} per second until {@code until}; returns when done. */
    void run(double rate, Instant until) throws InterruptedException {
        long periodNanos = (long) (1e9 / rate);
        long next = System.nanoTime();
        while (Instant.now().isBefore(until)) {
            submitOne();
            next += periodNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) Thread.sleep(Duration.ofNanos(wait));
        }
    }

    private void submitOne() throws InterruptedException {
        String chaosId = "c" + (++sequence);
        boolean retried = random.nextBoolean();
        int iterations = random.nextInt(4) == 0 ? 2 : 1;
        String seconds = String.format(Locale.ROOT, "%.2f", 0.1 + random.nextDouble() * 1.4);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("project", Cluster.PROJECT);
        body.put("spec", Cluster.SPEC);
        body.put("cmd", List.of("/bin/sh", script.toString(), chaosId, seconds));
        body.put("env", Map.of("CHAOS_LOG", executionLog.toString()));
        body.put("timeout", 60);
        body.put("iterations", iterations);
        if (retried) body.put("retry", Map.of("max_attempts", 3, "retry_when_runner_lost", true));
        Instant at = Instant.now();
        Submission.Outcome outcome = Submission.Outcome.NOT_SUBMITTED;
        String uuid = null;
        // A refused connection sent nothing: the next node (or the same one, restarted) is tried.
        for (int attempt = 0; attempt < 20 && outcome == Submission.Outcome.NOT_SUBMITTED; attempt++) {
            try {
                JsonNode created = api.call("POST", "/v0/run", body);
                uuid = created.path("job").path("uuid").asText();
                outcome = Submission.Outcome.ACKNOWLEDGED;
            } catch (Api.Uncertain e) {
                outcome = Submission.Outcome.UNCERTAIN;
            } catch (Api.Refused e) {
                if (e.status < 500)
                    throw new IllegalStateException("the server refused a chaos job: " + e.getMessage(), e);
                // 503: the HTTP layer is starting or stopping and took nothing; another 5xx may
                // have failed after the commit, so it is not sent again (that could make two jobs).
                if (e.status != 503) outcome = Submission.Outcome.UNCERTAIN;
                else Thread.sleep(250);
            } catch (IOException notSent) {
                Thread.sleep(250);
            }
        }
        submissions.add(new Submission(chaosId, uuid, outcome, at, retried, iterations));
    }
}

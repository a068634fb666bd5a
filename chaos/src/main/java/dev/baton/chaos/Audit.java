package dev.baton.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Compares three independent accounts after quiescence: what the suite submitted, what the jobs
 * wrote to the execution log, and what the server stored (jobs with their attempts and output,
 * reports with their results).
 *
 * <p>The lease itself is never visible to a job, so "executed under a valid lease" is decided by
 * the attempts the server recorded: attempt k of a job was held by runner R from its
 * {@code claimed} to its {@code ended} time (open while absent), and only R held a valid lease on
 * the job then. An execution by R that started inside that window ran under attempt k's lease.
 * Two executions of one iteration inside one window are a double run; windows of one job that
 * overlap are two valid leases at once. Both clocks are the same host's.
 */
final class Audit {
    static final Set<String> TERMINAL = Set.of("processed", "failed", "canceled");
    private static final Duration PATIENCE = Duration.ofMinutes(2);
    /**
     * The jobs' command always exits 0, so a job may fail only because its runner was lost or
     * killed under it (docs/protocol.md); any other failure is a wrong outcome.
     */
    private static final List<String> EXPLAINED_FAILURES = List.of(
            "lost contact with the runner",
            "runner restarted during execution",
            "the lease expired without heartbeats"); // the NATS transport's runner lost past max_requeues

    private final Api api;
    private final Map<String, String> runnerSlugs;

    /** @param runnerSlugs runner UUID → slug, to compare attempts with execution directories */
    Audit(Api api, Map<String, String> runnerSlugs) {
        this.api = api;
        this.runnerSlugs = new HashMap<>(runnerSlugs);
    }

    /** Runner UUID → the name executions give it; the pool scenario adds its machines' runners once it knows them. */
    Map<String, String> runnerSlugs() {
        return runnerSlugs;
    }

    /** Every job of the chaos project, newest first, page by page. */
    List<JsonNode> listJobs() throws IOException, InterruptedException {
        List<JsonNode> jobs = new ArrayList<>();
        int offset = 0;
        while (true) {
            JsonNode page = api.retrying(
                    "GET", "/v0/projects/" + Cluster.PROJECT + "/jobs?limit=500&offset=" + offset, null, PATIENCE);
            page.path("jobs").forEach(jobs::add);
            if (!page.hasNonNull("next_offset")) return jobs;
            offset = page.path("next_offset").asInt();
        }
    }

    /** Waits until no job is pending, claimed, running or completed (parsing); returns how long that took, or null on timeout. */
    Duration quiesce(Duration within) throws IOException, InterruptedException {
        Instant start = Instant.now();
        while (true) {
            boolean settled = listJobs().stream()
                    .allMatch(j -> TERMINAL.contains(j.path("status").asText()));
            if (settled) return Duration.between(start, Instant.now());
            if (Duration.between(start, Instant.now()).compareTo(within) > 0) return null;
            Thread.sleep(1000);
        }
    }

    /** Reads every job (with attempts and output) and the report of every processed one, then {@link #assess}es. */
    ChaosResult judge(
            List<Submission> submissions,
            List<Execution> executions,
            List<FaultEvent> faults,
            Duration quiescence,
            List<String> unexpectedExits,
            Path dump)
            throws IOException, InterruptedException {
        List<JsonNode> fetched = new ArrayList<>();
        Map<String, JsonNode> reports = new HashMap<>();
        for (JsonNode listed : listJobs()) {
            JsonNode job = api.retrying(
                    "GET",
                    "/v0/projects/" + Cluster.PROJECT + "/jobs/"
                            + listed.path("uuid").asText(),
                    null,
                    PATIENCE);
            fetched.add(job);
            if (job.path("status").asText().equals("processed")) {
                String report = job.path("report").asText();
                reports.put(
                        report,
                        api.retrying("GET", "/v0/projects/" + Cluster.PROJECT + "/reports/" + report, null, PATIENCE));
            }
        }
        // Every job as the server had it, for the post-mortem of a failed run.
        Api.JSON.writerWithDefaultPrettyPrinter().writeValue(dump.toFile(), fetched);
        return assess(submissions, executions, faults, quiescence, unexpectedExits, fetched, reports, runnerSlugs);
    }

    /**
     * The verdict from the three accounts alone (no I/O, so a test can feed it broken histories).
     *
     * @param jobs         every job of the project as {@code GET …/jobs/{job}} has it
     * @param reports      report UUID → report, for the processed jobs
     * @param runnerSlugs  runner UUID → slug
     */
    static ChaosResult assess(
            List<Submission> submissions,
            List<Execution> executions,
            List<FaultEvent> faults,
            Duration quiescence,
            List<String> unexpectedExits,
            List<JsonNode> jobs,
            Map<String, JsonNode> reports,
            Map<String, String> runnerSlugs) {
        List<String> violations = new ArrayList<>();
        Map<String, List<JsonNode>> byChaosId = new HashMap<>();
        for (JsonNode job : jobs)
            byChaosId.computeIfAbsent(chaosId(job), k -> new ArrayList<>()).add(job);
        Map<String, List<Execution>> executionsByJob =
                executions.stream().collect(Collectors.groupingBy(Execution::jobUuid));

        int submitted = 0;
        int lost = 0;
        int uncertain = 0;
        int uncertainCreated = 0;
        for (Submission s : submissions) {
            List<JsonNode> found = byChaosId.getOrDefault(s.chaosId(), List.of());
            if (found.size() > 1) violations.add(s.chaosId() + ": " + found.size() + " jobs for one submission");
            switch (s.outcome()) {
                case ACKNOWLEDGED -> {
                    submitted++;
                    if (found.stream().noneMatch(j -> j.path("uuid").asText().equals(s.jobUuid()))) {
                        lost++;
                        violations.add(s.chaosId() + ": job " + s.jobUuid() + " was acknowledged and is gone");
                    }
                }
                case UNCERTAIN -> {
                    uncertain++;
                    if (!found.isEmpty()) uncertainCreated++;
                }
                case NOT_SUBMITTED -> {
                    if (!found.isEmpty())
                        violations.add(s.chaosId() + ": no node took the submission, yet the job exists");
                }
            }
        }

        Map<String, Integer> statuses = new TreeMap<>();
        Map<String, Integer> failures = new TreeMap<>();
        int stuck = 0;
        int doubleRuns = 0;
        int overlapping = 0;
        int missingResults = 0;
        int outsideLease = 0;
        int wronglyFailed = 0;
        Map<String, Integer> finishedNotCompleted = new TreeMap<>();
        for (JsonNode job : jobs) {
            String uuid = job.path("uuid").asText();
            String status = job.path("status").asText();
            statuses.merge(status, 1, Integer::sum);
            if (status.equals("failed")) {
                String error = job.path("error").asText("?");
                failures.merge(error, 1, Integer::sum);
                if (EXPLAINED_FAILURES.stream().noneMatch(error::startsWith)) {
                    wronglyFailed++;
                    violations.add(
                            uuid + ": failed (" + error + "), but its command cannot fail and no fault explains that");
                }
            }
            if (!TERMINAL.contains(status)) {
                stuck++;
                violations.add(uuid + ": still " + status + " after quiescence");
            }
            List<Lease> leases = leases(job, runnerSlugs);
            for (int i = 0; i < leases.size(); i++) {
                for (int k = i + 1; k < leases.size(); k++) {
                    if (leases.get(i).overlaps(leases.get(k))) {
                        overlapping++;
                        violations.add(uuid + ": attempts " + leases.get(i).number + " and " + leases.get(k).number
                                + " held leases at the same time");
                    }
                }
            }
            List<Execution> ran = executionsByJob.getOrDefault(uuid, List.of());
            Map<String, Integer> perLease = new HashMap<>();
            for (Execution e : ran) {
                Optional<Lease> lease = leases.stream().filter(l -> l.covers(e)).findFirst();
                if (lease.isEmpty()) {
                    outsideLease++;
                    continue;
                }
                if (e.end() != null && !"completed".equals(lease.get().outcome)) {
                    finishedNotCompleted.merge(String.valueOf(lease.get().outcome), 1, Integer::sum);
                }
                String key = lease.get().number + "/" + e.iteration();
                if (perLease.merge(key, 1, Integer::sum) == 2) {
                    doubleRuns++;
                    violations.add(uuid + ": iteration " + e.iteration() + " executed twice under attempt "
                            + lease.get().number + " (runner " + e.runner() + ")");
                }
            }
            if (status.equals("processed")) {
                String missing = resultsProblem(
                        job, leases, ran, reports.get(job.path("report").asText()));
                if (missing != null) {
                    missingResults++;
                    violations.add(uuid + ": " + missing);
                }
            }
        }
        // Every execution belongs to a job of the project, the one its own command line names.
        Map<String, String> chaosIdOf = new HashMap<>();
        jobs.forEach(j -> chaosIdOf.put(j.path("uuid").asText(), chaosId(j)));
        for (Execution e : executions) {
            if (!e.chaosId().equals(chaosIdOf.get(e.jobUuid()))) {
                violations.add(
                        e.chaosId() + ": executed in the directory of job " + e.jobUuid() + ", which is not that job");
            }
        }
        unexpectedExits.forEach(x -> violations.add("process exited without being killed: " + x));

        Map<String, Integer> faultCounts = new TreeMap<>();
        int dropped = 0;
        for (FaultEvent f : faults) {
            faultCounts.merge(f.kind().name().toLowerCase(Locale.ROOT), 1, Integer::sum);
            if (f.kind() == FaultEvent.Kind.CONNECTIONS_DROPPED) dropped += f.count();
        }
        if (quiescence == null) violations.add("jobs did not all reach a terminal state within the quiescence timeout");
        Map<String, Integer> completedByTransport = new TreeMap<>();
        for (JsonNode j : jobs) {
            for (JsonNode a : j.path("attempts")) {
                if ("completed".equals(a.path("outcome").asText()))
                    completedByTransport.merge(a.path("transport").asText("?"), 1, Integer::sum);
            }
        }
        return new ChaosResult(
                submitted,
                uncertain + " (" + uncertainCreated + " created)",
                statuses,
                failures,
                executions.size(),
                completedByTransport,
                faultCounts,
                dropped,
                lost,
                stuck,
                doubleRuns,
                overlapping,
                missingResults,
                wronglyFailed,
                outsideLease,
                finishedNotCompleted,
                recovery(faults, jobs, runnerSlugs),
                quiescence,
                unexpectedExits,
                violations,
                null);
    }

    private static String chaosId(JsonNode job) {
        JsonNode cmd = job.path("config").path("cmd");
        return cmd.size() >= 3 ? cmd.get(2).asText() : "?";
    }

    /** One attempt's lease: held by {@code runner} from {@code claimed} until {@code ended} (null: still held). */
    private record Lease(int number, String runner, String outcome, Instant claimed, Instant ended) {
        boolean covers(Execution e) {
            return e.runner().equals(runner)
                    && !e.start().isBefore(claimed)
                    && (ended == null || !e.start().isAfter(ended));
        }

        boolean overlaps(Lease o) {
            Instant end = ended == null ? Instant.MAX : ended;
            Instant oEnd = o.ended == null ? Instant.MAX : o.ended;
            return claimed.isBefore(oEnd) && o.claimed.isBefore(end);
        }
    }

    private static List<Lease> leases(JsonNode job, Map<String, String> runnerSlugs) {
        List<Lease> leases = new ArrayList<>();
        for (JsonNode a : job.path("attempts")) {
            leases.add(new Lease(
                    a.path("number").asInt(),
                    runnerSlugs.getOrDefault(
                            a.path("runner").asText(), a.path("runner").asText()),
                    a.path("outcome").asText(null),
                    Instant.parse(a.path("claimed").asText()),
                    a.hasNonNull("ended") ? Instant.parse(a.path("ended").asText()) : null));
        }
        return leases;
    }

    /**
     * A processed job must have its output stored (every iteration, exit 0, stdout exactly the
     * metric line its execution printed) and its report's results; each iteration's metric must
     * be the nonce of an execution of that iteration that finished under the attempt that
     * completed. So a late final word of a moved attempt that removed or replaced the completing
     * attempt's output is found here. Null when all holds.
     */
    private static String resultsProblem(JsonNode job, List<Lease> leases, List<Execution> ran, JsonNode report) {
        int iterations = job.path("config").path("iterations").asInt(1);
        JsonNode output = job.path("output");
        if (output.isMissingNode() || output.isNull()) return "processed without stored output";
        if (output.path("results").size() != iterations)
            return "stored output has " + output.path("results").size() + " of " + iterations + " iterations";
        List<Lease> completed =
                leases.stream().filter(l -> "completed".equals(l.outcome)).toList();
        if (completed.size() != 1) return completed.size() + " attempts completed";
        Lease lease = completed.get(0);
        if (report == null || !report.hasNonNull("results")) return "report without results";
        for (int i = 0; i < iterations; i++) {
            JsonNode out = output.path("results").get(i);
            if (out.path("exit_code").asInt(-1) != 0)
                return "iteration " + i + " stored exit code " + out.path("exit_code");
            JsonNode metric = report.path("iterations")
                    .path(i)
                    .path("results")
                    .path("chaos")
                    .path("nonce")
                    .path("value");
            if (!metric.isNumber()) return "report has no metric for iteration " + i;
            long nonce = metric.asLong();
            // The stored stdout is what that execution printed (its one line), not only something holding its number.
            if (!out.path("stdout")
                    .asText()
                    .strip()
                    .equals(Workload.printed(nonce).strip())) {
                return "iteration " + i
                        + ": the stored stdout is not what the execution that printed the reported metric printed";
            }
            int iteration = i;
            boolean traced = ran.stream()
                    .anyMatch(e ->
                            e.iteration() == iteration && e.nonce() == nonce && e.end() != null && lease.covers(e));
            if (!traced)
                return "iteration " + i + ": the reported metric " + nonce
                        + " comes from no finished execution of the completing attempt " + lease.number;
        }
        return null;
    }

    /** Median and max per fault kind, in the terms docs/reliability.md defines. */
    private static Map<String, String> recovery(
            List<FaultEvent> faults, List<JsonNode> jobs, Map<String, String> runnerSlugs) {
        List<Instant> completions = jobs.stream()
                .filter(j -> j.hasNonNull("completed"))
                .map(j -> Instant.parse(j.path("completed").asText()))
                .sorted()
                .toList();
        List<Lease> all = new ArrayList<>();
        for (JsonNode j : jobs) all.addAll(leases(j, runnerSlugs));
        Map<String, String> out = new TreeMap<>();
        // Server killed: until the next job completes anywhere (nothing completes on a dead single node).
        out.put(
                "server_sigkill_to_next_completion",
                stats(
                        faults,
                        FaultEvent.Kind.SERVER_SIGKILL,
                        f -> completions.stream()
                                .filter(c -> c.isAfter(f.at()))
                                .findFirst()
                                .map(c -> Duration.between(f.at(), c))));
        out.put(
                "server_sigkill_to_ready",
                stats(
                        faults,
                        FaultEvent.Kind.SERVER_SIGKILL,
                        f -> Optional.of(Duration.between(f.at(), f.restored()))));
        // Runner killed: until it claims again (it restarted, swept, reconnected and got work).
        out.put(
                "runner_sigkill_to_next_claim",
                stats(
                        faults,
                        FaultEvent.Kind.RUNNER_SIGKILL,
                        f -> all.stream()
                                .filter(l -> l.runner.equals(f.target()) && l.claimed.isAfter(f.at()))
                                .map(l -> l.claimed)
                                .min(Comparator.naturalOrder())
                                .map(c -> Duration.between(f.at(), c))));
        // Runner frozen: until the server gave up the leases it held (heartbeat timeout at work).
        out.put(
                "runner_sigstop_to_lease_revoked",
                stats(
                        faults,
                        FaultEvent.Kind.RUNNER_SIGSTOP,
                        f -> all.stream()
                                .filter(l -> l.runner.equals(f.target())
                                        && l.claimed.isBefore(f.at())
                                        && l.ended != null
                                        && l.ended.isAfter(f.at())
                                        && l.ended.isBefore(f.restored()))
                                .map(l -> l.ended)
                                .max(Comparator.naturalOrder())
                                .map(e -> Duration.between(f.at(), e))));
        return out;
    }

    private static String stats(
            List<FaultEvent> faults, FaultEvent.Kind kind, Function<FaultEvent, Optional<Duration>> measure) {
        List<Duration> values = faults.stream()
                .filter(f -> f.kind() == kind)
                .map(measure)
                .flatMap(Optional::stream)
                .sorted()
                .toList();
        if (values.isEmpty()) return "-";
        return "median " + seconds(values.get((values.size() - 1) / 2)) + ", max "
                + seconds(values.get(values.size() - 1)) + " (n=" + values.size() + ")";
    }

    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
    }
}

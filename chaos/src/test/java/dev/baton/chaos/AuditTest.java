package dev.baton.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The audit catches each broken rule from the three accounts alone: a suite whose runs always
 * report zeros must be shown to report something when there is something.
 */
class AuditTest {
    private static final Instant T0 = Instant.parse("2026-11-24T06:00:00Z");
    private static final String JOB = "11111111-1111-4111-8111-111111111111";
    private static final String REPORT = "22222222-2222-4222-8222-222222222222";
    private static final Map<String, String> SLUGS = Map.of("uuid-a", "runner-a", "uuid-b", "runner-b");

    private final List<Submission> submissions =
            new ArrayList<>(List.of(new Submission("c1", JOB, Submission.Outcome.ACKNOWLEDGED, T0, false, 1)));
    private final List<Execution> executions = new ArrayList<>();
    private final List<JsonNode> jobs = new ArrayList<>();
    private final Map<String, JsonNode> reports = new HashMap<>();

    private ChaosResult assess() {
        return Audit.assess(submissions, executions, List.of(), Duration.ofSeconds(1), List.of(), jobs, reports, SLUGS);
    }

    private static Instant at(double seconds) {
        return T0.plusMillis((long) (seconds * 1000));
    }

    private static ObjectNode job(String status, String error) {
        ObjectNode j = Api.JSON.createObjectNode();
        j.put("uuid", JOB).put("status", status).put("report", REPORT);
        if (error != null) j.put("error", error);
        ObjectNode config = j.putObject("config");
        config.put("iterations", 1);
        config.putArray("cmd").add("/bin/sh").add("job.sh").add("c1").add("0.5");
        j.putArray("attempts");
        return j;
    }

    private static void attempt(
            ObjectNode job, int number, String runnerUuid, String outcome, double claimed, Double ended) {
        ObjectNode a = ((ArrayNode) job.get("attempts")).addObject();
        a.put("number", number)
                .put("runner", runnerUuid)
                .put("claimed", at(claimed).toString());
        if (outcome != null) a.put("outcome", outcome);
        if (ended != null) a.put("ended", at(ended).toString());
    }

    /** Stored output and a report whose metric is {@code nonce}, as the server keeps a processed job. */
    private void processedWith(ObjectNode job, long nonce) {
        job.put("completed", at(3).toString());
        job.putObject("output")
                .putArray("results")
                .addObject()
                .put("exit_code", 0)
                .put("stdout", "{\"chaos\": {\"nonce\": {\"value\": " + nonce + "}}}\n");
        ObjectNode report = Api.JSON.createObjectNode();
        report.putObject("results");
        report.putArray("iterations")
                .addObject()
                .put("iteration", 0)
                .putObject("results")
                .putObject("chaos")
                .putObject("nonce")
                .put("value", nonce);
        reports.put(REPORT, report);
        jobs.add(job);
    }

    private void ran(String runner, double start, Double end, long nonce) {
        executions.add(new Execution("c1", 0, runner, JOB, at(start), end == null ? null : at(end), nonce));
    }

    @Test
    void aCleanHistoryHasNoViolation() {
        ObjectNode j = job("processed", null);
        attempt(j, 1, "uuid-a", "completed", 1, 3.0);
        ran("runner-a", 1.1, 2.0, 42);
        processedWith(j, 42);

        ChaosResult r = assess();

        assertThat(r.violations()).isEmpty();
        assertThat(r.submitted()).isEqualTo(1);
        assertThat(r.statuses()).containsEntry("processed", 1);
    }

    @Test
    void twoExecutionsOfOneIterationUnderOneLeaseAreADoubleRun() {
        ObjectNode j = job("processed", null);
        attempt(j, 1, "uuid-a", "completed", 1, 3.0);
        ran("runner-a", 1.1, 2.0, 42);
        ran("runner-a", 2.1, 2.9, 43);
        processedWith(j, 42);

        assertThat(assess().doubleRuns()).isEqualTo(1);
    }

    @Test
    void aRetryUnderANewLeaseIsNoDoubleRunButAnOverlapOfLeasesIsAViolation() {
        ObjectNode j = job("processed", null);
        attempt(j, 1, "uuid-a", "lost", 1, 2.0);
        attempt(j, 2, "uuid-b", "completed", 2.5, 4.0);
        ran("runner-a", 1.1, 1.9, 41);
        ran("runner-b", 2.6, 3.5, 42);
        processedWith(j, 42);
        ChaosResult retry = assess();
        assertThat(retry.doubleRuns()).isZero();
        assertThat(retry.violations()).isEmpty();
        assertThat(retry.finishedNotCompleted()).containsEntry("lost", 1);

        jobs.clear();
        ObjectNode overlapping = job("processed", null);
        attempt(overlapping, 1, "uuid-a", "lost", 1, 3.0);
        attempt(overlapping, 2, "uuid-b", "completed", 2.5, 4.0);
        processedWith(overlapping, 42);
        assertThat(assess().overlappingLeases()).isEqualTo(1);
    }

    @Test
    void aResultThatNoExecutionOfTheCompletingAttemptProducedIsMissing() {
        ObjectNode j = job("processed", null);
        attempt(j, 1, "uuid-a", "lost", 1, 2.0);
        attempt(j, 2, "uuid-b", "completed", 2.5, 4.0);
        ran("runner-a", 1.1, 1.9, 41); // the fenced attempt's nonce
        ran("runner-b", 2.6, 3.5, 42);
        processedWith(j, 41);

        assertThat(assess().missingResults()).isEqualTo(1);
    }

    /**
     * The completing attempt's report is intact, but its stored output was replaced by what a
     * late word of the moved attempt carried (or removed): the output no longer is what the
     * completing execution printed.
     */
    @Test
    void aStoredOutputThatIsNotWhatTheCompletingExecutionPrintedIsMissing() {
        ObjectNode j = job("processed", null);
        attempt(j, 1, "uuid-a", "lost", 1, 2.0);
        attempt(j, 2, "uuid-b", "completed", 2.5, 4.0);
        ran("runner-a", 1.1, 1.9, 41);
        ran("runner-b", 2.6, 3.5, 42);
        processedWith(j, 42);
        ((ObjectNode) j.path("output").path("results").get(0))
                .put("stdout", Workload.printed(41) + Workload.printed(42));
        assertThat(assess().missingResults()).as("output replaced").isEqualTo(1);

        j.remove("output");
        assertThat(assess().missingResults()).as("output removed").isEqualTo(1);
    }

    @Test
    void anExecutionOutsideEveryLeaseIsCountedNotFailed() {
        ObjectNode j = job("processed", null);
        attempt(j, 1, "uuid-a", "completed", 1, 3.0);
        ran("runner-a", 1.1, 2.0, 42);
        ran("runner-b", 1.5, 2.5, 43); // runner-b never held this job
        processedWith(j, 42);

        ChaosResult r = assess();
        assertThat(r.outsideLease()).isEqualTo(1);
        assertThat(r.violations()).isEmpty();
    }

    @Test
    void anAcknowledgedJobTheServerDoesNotHaveIsLost() {
        submissions.add(new Submission(
                "c2", "33333333-3333-4333-8333-333333333333", Submission.Outcome.ACKNOWLEDGED, T0, false, 1));
        ObjectNode j = job("processed", null);
        attempt(j, 1, "uuid-a", "completed", 1, 3.0);
        ran("runner-a", 1.1, 2.0, 42);
        processedWith(j, 42);

        assertThat(assess().lost()).isEqualTo(1);
    }

    @Test
    void aJobInFlightAfterQuiescenceIsStuck() {
        ObjectNode j = job("running", null);
        attempt(j, 1, "uuid-a", null, 1, null);
        jobs.add(j);

        assertThat(assess().stuck()).isEqualTo(1);
    }

    @Test
    void aFailureNoFaultExplainsIsAViolationAndALostRunnerIsNot() {
        ObjectNode killed = job("failed", "iteration 0 exited with code 137");
        attempt(killed, 1, "uuid-a", "failed", 1, 2.0);
        jobs.add(killed);
        assertThat(assess().wronglyFailed()).isEqualTo(1);

        jobs.clear();
        ObjectNode lostRunner = job("failed", "lost contact with the runner (heartbeat timeout)");
        attempt(lostRunner, 1, "uuid-a", "lost", 1, 2.0);
        jobs.add(lostRunner);
        assertThat(assess().violations()).isEmpty();
    }
}

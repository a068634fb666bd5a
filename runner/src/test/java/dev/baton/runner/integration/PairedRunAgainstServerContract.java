package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.RunnerAgent;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.update.Updater;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paired runs (issue 45) end to end: the real server on its database, a real runner agent with
 * the process executor, the baseline and the candidate commands run alternately in one job, the
 * report's pairs and verdict read over the API. The candidate of the "slower" cases sleeps 200 ms
 * where the baseline sleeps 10 ms and both print the time they took, a difference some hundred
 * times the noise of a sleep; the "no change" case prints the same value on both sides.
 */
abstract class PairedRunAgainstServerContract {
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    /** Null for the SQLite file, or a fresh PostgreSQL schema. */
    abstract String databaseUrl();

    private BatonUnderTest baton;
    private RunnerAgent agent;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void start() {
        baton = new BatonUnderTest(dir.resolve("server"), databaseUrl());
        baton.benchProject();
        String host = Architecture.ofHost().orElseThrow().wireName();
        baton.spec("host", host);
        BatonUnderTest.Registered created = baton.runner("paired", "host");
        String slug = created.slug();
        agent = new RunnerAgent(
                MachineConfig.defaults("test"),
                new RunnerAgent.Target(baton.url(), slug, created.key()),
                new ProcessExecutor(
                        dir.resolve("work"), OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true),
                new Outbox(dir.resolve("outbox")),
                Updater.unsupported("test"),
                Clock.systemUTC(),
                Duration.ofMillis(200));
        threads.submit(agent::run);
    }

    @AfterEach
    void stop() throws Exception {
        agent.signal(Input.Signal.TERMINATE);
        threads.shutdown();
        threads.awaitTermination(30, TimeUnit.SECONDS);
        threads.shutdownNow();
        baton.close();
    }

    /** A command printing, as Bencher Metric Format, how long a sleep of {@code seconds} took. */
    private static List<String> timedSleep(String seconds) {
        return List.of(
                "sh",
                "-c",
                "s=$(date +%s%N); sleep " + seconds + "; e=$(date +%s%N);"
                        + " echo \"{\\\"work\\\":{\\\"latency\\\":{\\\"value\\\":$((e - s))}}}\"");
    }

    private JsonNode runToProcessed(Map<String, Object> run) {
        Map<String, Object> body = new HashMap<>(run);
        body.putAll(Map.of("project", "bench", "spec", "host", "timeout", 120, "adapter", "json"));
        JsonNode created = baton.post("/v0/run", body);
        String job = created.at("/job/uuid").asText();
        String report = created.at("/report/uuid").asText();
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> baton.get("/v0/projects/bench/jobs/" + job)
                        .get("status")
                        .asText()
                        .equals("processed"));
        return baton.get("/v0/projects/bench/reports/" + report);
    }

    @Test
    void aSlowerCandidateIsCalledSlowerWithEveryPairKept() {
        JsonNode report = runToProcessed(
                Map.of("cmd", timedSleep("0.2"), "baseline", Map.of("cmd", timedSleep("0.01")), "pairs", 4));

        JsonNode paired = report.get("paired");
        assertThat(paired.get("design").asText()).isEqualTo("fixed");
        assertThat(paired.get("interval").asText()).isEqualTo("paired_t");
        assertThat(paired.get("pairs").asInt()).isEqualTo(4);
        assertThat(report.get("iterations")).hasSize(8);
        // Each pair's sides are where the seeded order put them, whichever ran first.
        for (JsonNode run : paired.get("runs")) {
            assertThat(run.get("order").asText()).isIn("AB", "BA");
            assertThat(run.at("/baseline/work/latency/value").asDouble()).isLessThan(150e6);
            assertThat(run.at("/candidate/work/latency/value").asDouble()).isGreaterThanOrEqualTo(200e6);
        }
        JsonNode verdict = paired.at("/verdicts/0");
        assertThat(verdict.get("benchmark").asText()).isEqualTo("work");
        assertThat(verdict.get("direction").asText()).isEqualTo("lower_is_better");
        assertThat(verdict.get("verdict").asText()).isEqualTo("slower");
        assertThat(verdict.get("lower").asDouble()).isPositive();
        assertThat(paired.get("regression").asBoolean()).isTrue();
        // The report's own results are the candidate's.
        assertThat(report.at("/results/work/latency/value").asDouble()).isGreaterThanOrEqualTo(200e6);
    }

    @Test
    void untilSignificantStopsAtTheFirstPairThatDecides() {
        JsonNode report = runToProcessed(Map.of(
                "cmd",
                timedSleep("0.2"),
                "baseline",
                Map.of("cmd", timedSleep("0.01")),
                "until_significant",
                true,
                "pairs",
                40,
                "budget",
                600));

        JsonNode paired = report.get("paired");
        assertThat(paired.get("design").asText()).isEqualTo("until_significant");
        assertThat(paired.get("interval").asText()).isEqualTo("median_confidence_sequence");
        assertThat(paired.get("stopped").asText()).isEqualTo("decided");
        // The median's always-valid interval is unbounded before the eighth pair; a difference this large
        // decides there or soon after (a sleep stretched by a busy machine may cost a pair or two),
        // never at the cap.
        int pairs = paired.get("pairs").asInt();
        assertThat(pairs).isBetween(8, 39);
        assertThat(report.get("iterations")).hasSize(2 * pairs);
        assertThat(paired.at("/verdicts/0/verdict").asText()).isEqualTo("slower");
    }

    @Test
    void theSameOutputOnBothSidesIsNoChange() {
        List<String> same = List.of("sh", "-c", "echo '{\"work\":{\"latency\":{\"value\":1000}}}'");
        JsonNode report = runToProcessed(
                Map.of("cmd", same, "baseline", Map.of("cmd", same), "until_significant", true, "min_effect", 0.05));

        JsonNode paired = report.get("paired");
        assertThat(paired.get("stopped").asText()).isEqualTo("decided");
        assertThat(paired.get("pairs").asInt()).isEqualTo(8);
        assertThat(paired.get("regression").asBoolean()).isFalse();
        JsonNode verdict = paired.at("/verdicts/0");
        assertThat(verdict.get("verdict").asText()).isEqualTo("no_change");
        assertThat(verdict.get("difference").asDouble()).isZero();
    }

    @Test
    void eachSideKnowsWhichItIs() {
        // BATON_SIDE and BATON_PAIR reach the workload: the baseline prints 1, the candidate 2.
        List<String> cmd = List.of(
                "sh",
                "-c",
                "v=1; [ \"$BATON_SIDE\" = candidate ] && v=2; echo \"{\\\"side\\\":{\\\"latency\\\":{\\\"value\\\":$v}},"
                        + " \\\"pair\\\":{\\\"latency\\\":{\\\"value\\\":$BATON_PAIR}}}\"");
        JsonNode report = runToProcessed(Map.of("cmd", cmd, "baseline", Map.of("cmd", cmd), "pairs", 3));

        JsonNode runs = report.at("/paired/runs");
        assertThat(runs).hasSize(3);
        for (int p = 0; p < 3; p++) {
            assertThat(runs.get(p).at("/baseline/side/latency/value").asInt()).isEqualTo(1);
            assertThat(runs.get(p).at("/candidate/side/latency/value").asInt()).isEqualTo(2);
            assertThat(runs.get(p).at("/candidate/pair/latency/value").asInt()).isEqualTo(p);
        }
    }
}

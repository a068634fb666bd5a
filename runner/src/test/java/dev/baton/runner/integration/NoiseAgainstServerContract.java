package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.RunnerAgent;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.noise.NoiseProbe;
import dev.baton.runner.update.Updater;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each runner's noise end to end (decision 0052): a real agent measures its machine with the
 * calibration workload in a child JVM at start, reports it over its channel, and the real server
 * stores it and shows it on the runner; each start adds one calibration to the runner's history.
 */
abstract class NoiseAgainstServerContract {
    @TempDir
    Path dir;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    abstract String databaseUrl();

    @AfterEach
    void stop() throws Exception {
        threads.shutdownNow();
        threads.awaitTermination(30, TimeUnit.SECONDS);
    }

    private RunnerAgent agent(BatonUnderTest baton, String runner, RunnerKey key, int start) {
        return agent(baton, runner, key, start, true);
    }

    /** {@code atStart} false: the agent measures only when the server asks (decision 0062). */
    private RunnerAgent agent(BatonUnderTest baton, String runner, RunnerKey key, int start, boolean atStart) {
        var executor = new ProcessExecutor(
                dir.resolve("work"), OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        RunnerAgent agent = new RunnerAgent(
                MachineConfig.defaults("test").withPollTimeout(1),
                new RunnerAgent.Target(baton.url(), runner, key),
                executor,
                new Outbox(dir.resolve("outbox-" + start)),
                Updater.unsupported("test"),
                Clock.systemUTC(),
                Duration.ofMillis(200),
                dir.resolve("agent-" + start));
        NoiseProbe probe = new NoiseProbe(dir.resolve("noise"), 10, Optional.empty(), 300);
        return atStart ? agent.calibrateNoise(probe) : agent.calibrateOnRequest(probe);
    }

    private void runUntilCalibrations(BatonUnderTest baton, String slug, RunnerKey key, int start) throws Exception {
        RunnerAgent agent = agent(baton, slug, key, start);
        Future<Integer> exit = threads.submit(agent::run);
        await().atMost(Duration.ofSeconds(120))
                .until(() -> baton.get("/v0/runners/" + slug)
                                .path("noise")
                                .path("calibrations")
                                .asInt()
                        == start);
        agent.signal(Input.Signal.TERMINATE);
        assertThat(exit.get(30, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void theAgentMeasuresItsNoiseAtStartAndTheServerShowsItOnTheRunner() throws Exception {
        try (BatonUnderTest baton = new BatonUnderTest(dir.resolve("server"), databaseUrl())) {
            baton.spec("small", Architecture.ofHost().orElseThrow().wireName());
            BatonUnderTest.Registered created = baton.runner("quiet-1", "small");
            String slug = created.slug();
            RunnerKey key = created.key();
            assertThat(baton.get("/v0/runners/" + slug).has("noise"))
                    .as("no noise before the agent measured it")
                    .isFalse();

            runUntilCalibrations(baton, slug, key, 1);
            JsonNode noise = baton.get("/v0/runners/" + slug).path("noise");
            assertThat(noise.path("repetitions").asInt()).isEqualTo(10);
            for (String figure : new String[] {"cpu_cv", "memory_cv", "file_cv"}) {
                assertThat(noise.path(figure).isNumber()).as(figure).isTrue();
                assertThat(noise.path(figure).asDouble()).as(figure).isGreaterThanOrEqualTo(0);
            }
            double largest = Math.max(
                    noise.path("cpu_cv").asDouble(),
                    Math.max(
                            noise.path("memory_cv").asDouble(),
                            noise.path("file_cv").asDouble()));
            assertThat(noise.path("cv").asDouble()).isEqualTo(largest);
            assertThat(noise.path("noisy").asBoolean())
                    .as("one calibration is no history")
                    .isFalse();
            JsonNode listed = baton.get("/v0/runners");
            assertThat(listed.findValues("noise")).hasSize(1);
            assertThat(listed.get(0).path("noise").path("measured").asText())
                    .isEqualTo(noise.path("measured").asText());

            // A second start measures again: the history grows by one, the latest is shown.
            runUntilCalibrations(baton, slug, key, 2);
            assertThat(baton.get("/v0/runners/" + slug)
                            .path("noise")
                            .path("measured")
                            .asText())
                    .isNotEqualTo(noise.path("measured").asText());
        }
    }

    private static Map<String, Object> spec(String slug) {
        return Map.of(
                "name",
                slug,
                "slug",
                slug,
                "architecture",
                Architecture.ofHost().orElseThrow().wireName(),
                "cpu",
                1,
                "memory",
                256 << 20,
                "disk",
                1L << 30);
    }

    private static String run(BatonUnderTest baton, String spec) {
        return run(baton, spec, java.util.List.of("true"));
    }

    private static String run(BatonUnderTest baton, String spec, java.util.List<String> cmd) {
        return baton.post(
                        "/v0/run",
                        Map.of("project", "bench", "spec", spec, "cmd", cmd, "timeout", 60, "adapter", "raw"))
                .at("/job/uuid")
                .asText();
    }

    private static String status(BatonUnderTest baton, String job) {
        return baton.get("/v0/projects/bench/jobs/" + job).path("status").asText();
    }

    /**
     * A spec's noise limit: a runner noisier than it does not claim its jobs, while it claims the
     * jobs of its other specs; with the limit raised to its noise it claims them (from its next
     * ready: a wait already under way keeps the specs it began with).
     */
    @Test
    void aRunnerNoisierThanASpecsLimitDoesNotClaimItsJobs() throws Exception {
        try (BatonUnderTest baton = new BatonUnderTest(dir.resolve("server"), databaseUrl())) {
            baton.benchProject();
            baton.post("/v0/specs", spec("any"));
            // A limit no machine meets, set before the runner connects: its first ready already leaves the spec out.
            Map<String, Object> quiet = new java.util.HashMap<>(spec("quiet"));
            quiet.put("max_noise_cv", 1e-9);
            baton.post("/v0/specs", quiet);
            BatonUnderTest.Registered created = baton.runner("loud-1", "any");
            String slug = created.slug();
            baton.post("/v0/runners/" + slug + "/specs", Map.of("spec", "quiet"));
            RunnerKey key = created.key();

            RunnerAgent agent = agent(baton, slug, key, 1);
            Future<Integer> exit = threads.submit(agent::run);
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> baton.get("/v0/runners/" + slug).has("noise"));
            double cv = baton.get("/v0/runners/" + slug).at("/noise/cv").asDouble();
            assertThat(cv)
                    .as("a machine's repetitions never all take the same time")
                    .isGreaterThan(1e-9);

            // Queued first, so a runner allowed to take it would have taken it before the other.
            String quietJob = run(baton, "quiet");
            String anyJob = run(baton, "any");
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> status(baton, anyJob).equals("processed"));
            assertThat(status(baton, quietJob)).isEqualTo("pending");

            // Its own noise is within a limit equal to it (at most, not below); the runner's next ready sees it.
            // A limit is at most 1: a machine that measured a CV above 100 % (a loaded CI host) cannot meet one.
            org.junit.jupiter.api.Assumptions.assumeTrue(
                    cv <= 1, "the machine measured a CV of " + cv + ", above any limit a spec may set");
            baton.patch("/v0/specs/quiet", Map.of("max_noise_cv", cv));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> status(baton, quietJob).equals("processed"));

            agent.signal(Input.Signal.TERMINATE);
            assertThat(exit.get(30, TimeUnit.SECONDS)).isZero();
        }
    }

    /**
     * {@code POST /v0/runners/{runner}/noise} (decision 0062): an agent that measures only when
     * asked measures once asked, idle, and the server shows the new calibration; the server refuses
     * an unknown runner, one without a channel, and one that holds a job.
     */
    @Test
    void anIdleAgentMeasuresWhenAskedAndABusyOrAbsentOneIsRefused() throws Exception {
        try (BatonUnderTest baton = new BatonUnderTest(dir.resolve("server"), databaseUrl())) {
            baton.benchProject();
            baton.post("/v0/specs", spec("any"));
            BatonUnderTest.Registered created = baton.runner("asked-1", "any");
            String slug = created.slug();
            RunnerKey key = created.key();
            String noise = "/v0/runners/" + slug + "/noise";
            assertThat(baton.post("/v0/runners/nosuch/noise", Map.of(), 4)
                            .path("code")
                            .asText())
                    .isEqualTo("runner_not_found");
            assertThat(baton.post(noise, Map.of(), 4).path("code").asText()).isEqualTo("runner_not_connected");

            RunnerAgent agent = agent(baton, slug, key, 1, false);
            Future<Integer> exit = threads.submit(agent::run);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> baton.get("/v0/runners/" + slug).hasNonNull("machine"));
            assertThat(baton.get("/v0/runners/" + slug).has("noise"))
                    .as("this agent does not measure at start")
                    .isFalse();
            JsonNode asked = baton.post(noise, Map.of());
            assertThat(asked.path("requested").asBoolean()).isTrue();
            assertThat(asked.hasNonNull("previous")).as("no calibration before").isFalse();
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> baton.get("/v0/runners/" + slug).has("noise"));
            JsonNode measured = baton.get("/v0/runners/" + slug).path("noise");
            assertThat(measured.path("repetitions").asInt()).isEqualTo(10);
            assertThat(measured.path("calibrations").asInt()).isEqualTo(1);

            // After measuring it asks for work again: a job runs, and while it does the runner is busy.
            String job = run(baton, "any", java.util.List.of("sleep", "30"));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> status(baton, job).equals("running"));
            assertThat(baton.post(noise, Map.of(), 4).path("code").asText()).isEqualTo("runner_busy");
            baton.post("/v0/projects/bench/jobs/" + job + "/cancel", Map.of());

            agent.signal(Input.Signal.TERMINATE);
            assertThat(exit.get(30, TimeUnit.SECONDS)).isZero();
        }
    }
}

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
        var executor = new ProcessExecutor(
                dir.resolve("work"), OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        return new RunnerAgent(
                        MachineConfig.defaults("test"),
                        new RunnerAgent.Target(baton.url(), runner, key),
                        executor,
                        new Outbox(dir.resolve("outbox-" + start)),
                        Updater.unsupported("test"),
                        Clock.systemUTC(),
                        Duration.ofMillis(200),
                        dir.resolve("agent-" + start))
                .calibrateNoise(new NoiseProbe(dir.resolve("noise"), 5, Optional.empty(), 300));
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
            baton.post(
                    "/v0/specs",
                    Map.of(
                            "name",
                            "small",
                            "slug",
                            "small",
                            "architecture",
                            Architecture.ofHost().orElseThrow().wireName(),
                            "cpu",
                            1,
                            "memory",
                            256 << 20,
                            "disk",
                            1L << 30));
            JsonNode created = baton.post("/v0/runners", Map.of("name", "quiet-1"));
            String slug = created.at("/runner/slug").asText();
            baton.post("/v0/runners/" + slug + "/specs", Map.of("spec", "small"));
            RunnerKey key = RunnerKey.parse(created.get("key").asText());
            assertThat(baton.get("/v0/runners/" + slug).has("noise"))
                    .as("no noise before the agent measured it")
                    .isFalse();

            runUntilCalibrations(baton, slug, key, 1);
            JsonNode noise = baton.get("/v0/runners/" + slug).path("noise");
            assertThat(noise.path("repetitions").asInt()).isEqualTo(5);
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
}

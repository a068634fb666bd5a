package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.model.CapabilityLabels;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.RunnerCapabilities;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.RunnerAgent;
import dev.baton.runner.executor.Execution;
import dev.baton.runner.executor.ExecutionEvents;
import dev.baton.runner.executor.Executor;
import dev.baton.runner.executor.Leftover;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.testing.TestImages;
import dev.baton.runner.update.Updater;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 45, the real agent against the real server: an agent whose executor runs no second image
 * (the process executor) says so in {@code ready}, the server shows it at the capabilities
 * endpoint, and a paired run whose baseline is an image of its own is not offered to it: it waits,
 * saying why (decision 0076). Labelled by an admin anyway, the agent declines the job
 * {@code image_refused} itself, before the executor's prepare is ever called.
 */
class BaselineImageRefusedAgainstServerTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /** The process executor, counting the jobs handed to its prepare. */
    private record Watched(Executor executor, AtomicInteger prepared) implements Executor {
        @Override
        public String name() {
            return executor.name();
        }

        @Override
        public RunnerCapabilities capabilities() {
            return executor.capabilities();
        }

        @Override
        public boolean runsBaselineImage() {
            return executor.runsBaselineImage();
        }

        @Override
        public Execution prepare(ClaimedJob job, ExecutionEvents events) {
            prepared.incrementAndGet();
            return executor.prepare(job, events);
        }

        @Override
        public List<Leftover> sweep() {
            return executor.sweep();
        }
    }

    @Test
    void aProcessRunnerIsNotOfferedABaselineImageJobAndDeclinesOneBeforePreparingIt() throws Exception {
        assumeTrue(Files.isExecutable(TestImages.BUSYBOX), "no static busybox at /bin/busybox");
        ExecutorService threads = Executors.newCachedThreadPool();
        try (BatonUnderTest baton = new BatonUnderTest(dir.resolve("server"))) {
            baton.benchProject();
            baton.spec("host", Architecture.ofHost().orElseThrow().wireName());
            BatonUnderTest.Registered created = baton.runner("process box", "host");
            String slug = created.slug();
            var executor = new Watched(
                    new ProcessExecutor(
                            dir.resolve("work"), OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true),
                    new AtomicInteger());
            RunnerAgent agent = new RunnerAgent(
                    MachineConfig.defaults("test"),
                    new RunnerAgent.Target(baton.url(), slug, created.key()),
                    executor,
                    new Outbox(dir.resolve("outbox")),
                    Updater.unsupported("test"),
                    Clock.systemUTC(),
                    Duration.ofMillis(200));
            var exit = threads.submit(agent::run);

            // The agent adds the executor's answer to its ready; the server keeps and shows it.
            await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                JsonNode c = baton.get("/v0/runners/" + slug + "/capabilities").path("capabilities");
                assertThat(c.path("executor").asText()).isEqualTo("process");
                assertThat(c.path("baseline_image").isBoolean())
                        .as(c.toString())
                        .isTrue();
                assertThat(c.get("baseline_image").asBoolean()).isFalse();
            });

            TestImages.Image candidate = TestImages.busybox(dir.resolve("new"), List.of("echo", "new"), List.of());
            TestImages.Image baseline = TestImages.busybox(dir.resolve("old"), List.of("echo", "old"), List.of());
            baton.pushImage(candidate, "bench", "pr");
            baton.pushImage(baseline, "bench", "main");
            // A command the process executor could run in place of the image, and a baseline command too:
            // only the baseline's image stands in the way.
            String job = baton.post(
                            "/v0/run",
                            Map.of(
                                    "project",
                                    "bench",
                                    "spec",
                                    "host",
                                    "image",
                                    "pr",
                                    "cmd",
                                    List.of("sh", "-c", "echo new"),
                                    "baseline",
                                    Map.of("image", "main", "cmd", List.of("sh", "-c", "echo old")),
                                    "pairs",
                                    2,
                                    "timeout",
                                    60))
                    .at("/job/uuid")
                    .asText();

            // The job requires the capability label, which a process runner does not report: it is
            // never offered, and its pending reason says what it waits for (decision 0076).
            await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                JsonNode j = baton.get("/v0/projects/bench/jobs/" + job);
                assertThat(j.at("/require_labels/" + "baton.dev~1baseline-image")
                                .asText())
                        .isEqualTo("true");
                assertThat(j.at("/pending_reason/code").asText()).isEqualTo("labels_unmatched");
                assertThat(j.at("/pending_reason/message").asText())
                        .contains(CapabilityLabels.BASELINE_IMAGE + "=true")
                        .contains("runc and microvm runners only");
            });
            JsonNode runner = baton.get("/v0/runners/" + slug);
            assertThat(runner.path("labels_reported").has(CapabilityLabels.BASELINE_IMAGE))
                    .as(runner.toString())
                    .isFalse();
            assertThat(baton.get("/v0/projects/bench/jobs/" + job)
                            .path("status")
                            .asText())
                    .isEqualTo("pending");
            assertThat(baton.get("/v0/projects/bench/jobs/" + job)
                            .path("attempts")
                            .size())
                    .isZero();

            // An admin who labels the runner anyway (the label a runc runner reports) gets it the job:
            // the agent itself still declines it before its executor sees it.
            baton.patch("/v0/runners/" + slug, Map.of("labels", Map.of(CapabilityLabels.BASELINE_IMAGE, "true")));
            await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> baton.get("/v0/projects/bench/jobs/" + job)
                            .path("attempts")
                            .path(0)
                            .has("decline_code"));
            JsonNode attempt = baton.get("/v0/projects/bench/jobs/" + job).at("/attempts/0");
            assertThat(attempt.get("outcome").asText()).isEqualTo("declined");
            assertThat(attempt.get("decline_code").asText()).isEqualTo("image_refused");
            assertThat(attempt.get("decline_reason").asText())
                    .contains("the process executor runs no second image")
                    .contains(baseline.digest().value())
                    .contains("only runc and microvm runners");
            assertThat(executor.prepared()).as("prepare never saw the job").hasValue(0);

            agent.signal(Input.Signal.TERMINATE);
            exit.get(30, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
    }
}

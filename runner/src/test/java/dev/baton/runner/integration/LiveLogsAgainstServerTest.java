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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live logs end to end: the real agent runs a process job that prints and then waits for the
 * test, and what it printed is readable from the logs route while the job is still running; once
 * it finished, the log is whole.
 */
class LiveLogsAgainstServerTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private BatonUnderTest baton;
    private RunnerAgent agent;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void start() {
        baton = new BatonUnderTest(dir.resolve("server"));
        baton.benchProject();
        String host = Architecture.ofHost().orElseThrow().wireName();
        baton.spec("host", host);
        BatonUnderTest.Registered created = baton.runner("agent", "host");
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

    private static String text(JsonNode page, String stream) {
        StringBuilder b = new StringBuilder();
        for (JsonNode e : page.get("entries"))
            if (e.get("stream").asText().equals(stream)) b.append(e.get("text").asText());
        return b.toString();
    }

    @Test
    void linesAJobPrintsAppearInItsLogWhileItRunsAndTheEndedLogIsWhole() throws Exception {
        Path release = dir.resolve("release");
        String script = "echo 'warming up'; echo 'cold cache' >&2; echo 'iteration 1: 4.2 ms';" + " while [ ! -f '"
                + release + "' ]; do sleep 0.05; done; echo '{\"sort\":{\"latency\":{\"value\":4.2}}}'";
        // Command-only (the process executor pulls nothing); raw, since the printed lines are no metrics.
        String job = baton.post(
                        "/v0/run",
                        Map.of(
                                "project",
                                "bench",
                                "spec",
                                "host",
                                "cmd",
                                List.of("sh", "-c", script),
                                "timeout",
                                120,
                                "adapter",
                                "raw"))
                .at("/job/uuid")
                .asText();
        String logs = "/v0/projects/bench/jobs/" + job + "/logs";

        // The job blocks on the release file: everything asserted here was streamed live.
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> text(baton.get(logs), "stdout").equals("warming up\niteration 1: 4.2 ms\n")
                        && text(baton.get(logs), "stderr").equals("cold cache\n"));
        JsonNode live = baton.get(logs);
        assertThat(live.get("status").asText()).isEqualTo("running");
        assertThat(live.get("complete").asBoolean()).isFalse();
        assertThat(baton.get("/v0/projects/bench/jobs/" + job).get("status").asText())
                .isEqualTo("running");
        long next = live.get("next").asLong();

        Files.writeString(release, "go");
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> baton.get("/v0/projects/bench/jobs/" + job)
                        .get("status")
                        .asText()
                        .equals("processed"));
        JsonNode whole = baton.get(logs);
        assertThat(whole.get("complete").asBoolean()).isTrue();
        assertThat(text(whole, "stdout"))
                .isEqualTo("warming up\niteration 1: 4.2 ms\n{\"sort\":{\"latency\":{\"value\":4.2}}}\n");
        assertThat(text(whole, "stderr")).isEqualTo("cold cache\n");
        JsonNode rest = baton.get(logs + "?after=" + next);
        assertThat(text(rest, "stdout"))
                .as("only what came after the live read")
                .isEqualTo("{\"sort\":{\"latency\":{\"value\":4.2}}}\n");
    }
}

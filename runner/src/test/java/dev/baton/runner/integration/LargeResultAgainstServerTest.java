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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40: a large final word over the real channel. The real agent runs process jobs that print
 * 1 MiB per iteration, so the {@code completed} message is tens of MiB; while it is on the wire a
 * second job streams log chunks and both jobs' heartbeats flow on the same socket. At the limit
 * the result must arrive whole; over the server's limit the runner must send a smaller result
 * (truncated, with a marker) instead of resending the refused one until it gives up.
 */
@Tag("slow")
class LargeResultAgainstServerTest {
    private static final Duration WAIT = Duration.ofMinutes(3);
    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    private BatonUnderTest baton;
    private RunnerAgent agent;
    private FrameCheckingProxy proxy;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private void start(long serverLimit, int runnerLimit) throws Exception {
        baton = new BatonUnderTest(
                dir.resolve("server"), null, b -> b.requestBodyMaxBytes(serverLimit), Clock.systemUTC());
        baton.benchProject();
        String host = Architecture.ofHost().orElseThrow().wireName();
        baton.spec("host", host);
        BatonUnderTest.Registered created = baton.runner("agent", "host");
        String slug = created.slug();
        // Through a proxy that checks the runner's framing: a broken channel is then blamed on the right side.
        proxy = new FrameCheckingProxy(baton.url());
        agent = new RunnerAgent(
                MachineConfig.defaults("test").withSlots(2).withMaxMessageBytes(runnerLimit),
                new RunnerAgent.Target(proxy.url(), slug, created.key()),
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
        if (agent != null) agent.signal(Input.Signal.TERMINATE);
        threads.shutdown();
        threads.awaitTermination(30, TimeUnit.SECONDS);
        threads.shutdownNow();
        if (proxy != null) proxy.close();
        if (baton != null) baton.close();
    }

    /** A job that prints exactly 1 MiB of 'x' per iteration (the executor's per-stream bound). */
    private String bigJob(int iterations) {
        String script = "head -c " + MIB + " /dev/zero | tr '\\0' x";
        return baton.post(
                        "/v0/run",
                        Map.of(
                                "project",
                                "bench",
                                "spec",
                                "host",
                                "cmd",
                                List.of("sh", "-c", script),
                                "iterations",
                                iterations,
                                "timeout",
                                600,
                                "adapter",
                                "raw"))
                .at("/job/uuid")
                .asText();
    }

    /** Like {@link #bigJob}, but each iteration first waits for the release file. */
    private String bigJobAfter(Path release, int iterations) {
        String script =
                "while [ ! -f '" + release + "' ]; do sleep 0.05; done; head -c " + MIB + " /dev/zero | tr '\\0' x";
        return baton.post(
                        "/v0/run",
                        Map.of(
                                "project",
                                "bench",
                                "spec",
                                "host",
                                "cmd",
                                List.of("sh", "-c", script),
                                "iterations",
                                iterations,
                                "timeout",
                                600,
                                "adapter",
                                "raw"))
                .at("/job/uuid")
                .asText();
    }

    /** The job ended with every iteration, each cut to the same length with the marker, and the whole within {@code limit}. */
    private static void assertCutToFit(JsonNode done, int iterations, long limit) {
        assertThat(done.get("status").asText())
                .as(done.toString().substring(0, Math.min(2000, done.toString().length())))
                .isEqualTo("processed");
        JsonNode results = done.at("/output/results");
        assertThat(results.size()).isEqualTo(iterations);
        long total = 0;
        int length = results.get(0).get("stdout").asText().length();
        for (JsonNode r : results) {
            String stdout = r.get("stdout").asText();
            assertThat(r.get("exit_code").asInt()).isZero();
            assertThat(stdout)
                    .startsWith("xxxx")
                    .endsWith("[baton: truncated to fit the message limit]\n")
                    .hasSize(length);
            total += stdout.length();
        }
        assertThat(total).isLessThan(limit).isGreaterThan(limit / 2);
    }

    /** A job that prints a line every 20 ms until the release file exists: live log chunks on the socket. */
    private String chattyJob(Path release) {
        String script =
                "i=0; while [ ! -f '" + release + "' ]; do i=$((i+1)); echo \"line $i of chatter\"; sleep 0.02; done";
        return baton.post(
                        "/v0/run",
                        Map.of(
                                "project",
                                "bench",
                                "spec",
                                "host",
                                "cmd",
                                List.of("sh", "-c", script),
                                "timeout",
                                600,
                                "adapter",
                                "raw"))
                .at("/job/uuid")
                .asText();
    }

    private JsonNode job(String uuid) {
        return baton.get("/v0/projects/bench/jobs/" + uuid);
    }

    private JsonNode awaitEnded(String uuid) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() -> {
            String status = job(uuid).get("status").asText();
            return !status.equals("pending") && !status.equals("claimed") && !status.equals("running");
        });
        return job(uuid);
    }

    private String logs(String uuid) {
        return baton.get("/v0/projects/bench/jobs/" + uuid + "/logs").toString();
    }

    @Test
    void aResultOfFortyEightMebibytesArrivesWholeWhileAnotherJobStreamsLogs() throws Exception {
        start(64L * MIB, 64 * MIB);
        Path release = dir.resolve("release");
        String chatty = chattyJob(release);
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> logs(chatty).contains("line 3 of chatter"));

        long t0 = System.nanoTime();
        String big = bigJob(48);
        JsonNode done = awaitEnded(big);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[issue-40] 48 x 1 MiB job submitted to processed in " + millis + " ms");

        assertThat(proxy.faults()).as("framing faults in what the runner sent").isEmpty();
        assertThat(done.get("status").asText())
                .as(done.path("error").toString())
                .isEqualTo("processed");
        JsonNode results = done.at("/output/results");
        assertThat(results.size()).isEqualTo(48);
        String whole = "x".repeat(MIB);
        for (JsonNode r : results) {
            assertThat(r.get("exit_code").asInt()).isZero();
            assertThat(r.get("stdout").asText()).isEqualTo(whole);
        }
        // The chatty job kept its connection through the big send: it still runs, and ends normally.
        assertThat(job(chatty).get("status").asText()).isEqualTo("running");
        Files.writeString(release, "go");
        assertThat(awaitEnded(chatty).get("status").asText()).isEqualTo("processed");
    }

    @Test
    void overTheServersLimitTheResultArrivesCutToItWithAMarker() throws Exception {
        // The runner would send 64 MiB; the server's welcome says 16 MiB (the default), so it cuts first.
        start(16L * MIB, 64 * MIB);
        String big = bigJob(24);
        assertCutToFit(awaitEnded(big), 24, 16L * MIB);
    }

    @Test
    void aResultTheServerRefusesAsTooBigIsResentSmallerNotDropped() throws Exception {
        start(64L * MIB, 64 * MIB);
        Path release = dir.resolve("release");
        String big = bigJobAfter(release, 24);
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> job(big).get("status").asText().equals("running"));

        // The job ends while the server is down, so its result waits in the outbox; the server comes
        // back with a smaller limit, and the runner resends before it reads the new welcome: 1009.
        baton.stop();
        Files.writeString(release, "go");
        Path outbox = dir.resolve("outbox").resolve(big + ".result.json");
        await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> Files.exists(outbox));
        baton.startWith(b -> b.requestBodyMaxBytes(16L * MIB));

        assertCutToFit(awaitEnded(big), 24, 16L * MIB);
    }
}

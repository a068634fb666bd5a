package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.BrokerSettings;
import dev.baton.protocol.value.Architecture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runner written from seed 003 and docs/protocol.md alone, outside Baton's Java code
 * (src/test/resources/seed-runner/seed_runner.py: Python's standard library, NATS's text protocol
 * over a socket, urllib), run as its own process against the real server and a real nats-server:
 * jobs it takes complete, a failing one fails with its exit code, a cancel reaches it, and it keeps
 * pulling when a pull gets no answer at all (JetStream's answer to a pull on a consumer that does
 * not exist yet).
 */
@Tag("nats")
class SeedRunnerTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private NatsServerProcess nats;
    private BatonUnderTest baton;
    private Process runner;

    @BeforeAll
    static void requireTools() {
        assumeTrue(NatsServerProcess.available(), "no nats-server at " + NatsServerProcess.BINARY);
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "no /usr/bin/python3");
    }

    private String runnerSlug;
    private Path key;

    @BeforeEach
    void start() throws Exception {
        nats = new NatsServerProcess(dir.resolve("nats"));
        baton = new BatonUnderTest(
                dir.resolve("server"),
                null,
                b -> b.broker(new BrokerSettings(nats.url(), "nats", Set.of(), Duration.ofSeconds(6))),
                Clock.systemUTC());
        baton.benchProject();
        JsonNode created = baton.post("/v0/runners", Map.of("name", "seed runner"));
        runnerSlug = created.at("/runner/slug").asText();
        key = dir.resolve("key");
        Files.writeString(key, created.get("key").asText());
    }

    /** A spec of this host's architecture, served by the seed runner; the server offers its jobs on the broker. */
    private void spec(String slug) {
        String host = Architecture.ofHost().orElseThrow().wireName();
        baton.spec(slug, host);
        baton.post("/v0/runners/" + runnerSlug + "/specs", Map.of("spec", slug));
    }

    private void startRunner(String spec) throws Exception {
        Path script = Path.of(
                SeedRunnerTest.class.getResource("/seed-runner/seed_runner.py").toURI());
        runner = new ProcessBuilder(
                        "/usr/bin/python3",
                        script.toString(),
                        "--server",
                        baton.url().toString(),
                        "--runner",
                        runnerSlug,
                        "--key-file",
                        key.toString(),
                        "--nats",
                        nats.url().substring("nats://".length()),
                        "--spec",
                        spec)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("seed-runner.log").toFile())
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        if (runner != null) {
            runner.destroy();
            if (!runner.waitFor(20, TimeUnit.SECONDS)) runner.destroyForcibly();
        }
        if (baton != null) baton.close();
        if (nats != null) nats.close();
    }

    private String submit(List<String> cmd) {
        return submit("host", cmd);
    }

    private String submit(String spec, List<String> cmd) {
        return baton.post(
                        "/v0/run",
                        Map.of("project", "bench", "spec", spec, "cmd", cmd, "timeout", 600, "adapter", "json"))
                .at("/job/uuid")
                .asText();
    }

    private JsonNode job(String uuid) {
        return baton.get("/v0/projects/bench/jobs/" + uuid);
    }

    /** Waits for the job to reach one of {@code statuses}; a failure shows the seed runner's log (the temporary directory goes). */
    private JsonNode awaitStatus(String uuid, String... statuses) throws Exception {
        try {
            await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() ->
                            List.of(statuses).contains(job(uuid).get("status").asText()));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; job: " + job(uuid) + "\nseed runner's log:\n" + log(), e);
        }
        return job(uuid);
    }

    @Test
    void theSeedRunnerTakesJobsFromTheQueueAndCompletesThem() throws Exception {
        spec("host");
        startRunner("host");
        String ok1 = submit(List.of("sh", "-c", "echo first"));
        String ok2 = submit(List.of("sh", "-c", "echo second"));
        String bad = submit(List.of("sh", "-c", "echo broken >&2; exit 3"));

        for (String uuid : List.of(ok1, ok2)) {
            JsonNode done = awaitStatus(uuid, "completed", "processed");
            assertThat(done.at("/output/results/0/exit_code").asInt()).as(log()).isZero();
            assertThat(done.get("attempts"))
                    .singleElement()
                    .satisfies(a -> assertThat(a.get("outcome").asText()).isEqualTo("completed"));
        }
        JsonNode failed = awaitStatus(bad, "failed");
        assertThat(failed.at("/output/results/0/exit_code").asInt()).isEqualTo(3);
        assertThat(failed.get("error").asText()).contains("broken");

        String long_ = submit(List.of("sh", "-c", "sleep 300"));
        awaitStatus(long_, "running");
        baton.post("/v0/projects/bench/jobs/" + long_ + "/cancel", Map.of());
        await().atMost(WAIT)
                .until(() -> job(long_).at("/attempts/0/outcome").asText().equals("canceled"));
        // Acknowledged by the runner (CancelAck), not finalized by the server's cancel deadline (30 s).
        await().atMost(Duration.ofSeconds(20)).until(() -> log().contains("CancelAck: {'type': 'CompleteAck'"));
        assertThat(log()).contains("Complete of job");
    }

    @Test
    void theSeedRunnerKeepsPullingWhenAPullGetsNoAnswer() throws Exception {
        // The runner starts before its spec exists, so its spec's consumer cannot exist: JetStream
        // answers nothing at all to that pull, not even an expiry.
        startRunner("late");
        await().atMost(WAIT).until(() -> log().contains("pull from consumer baton-late got no answer"));

        spec("late");
        String ok = submit("late", List.of("sh", "-c", "echo late"));

        JsonNode done = awaitStatus(ok, "completed", "processed");
        assertThat(done.at("/output/results/0/exit_code").asInt()).as(log()).isZero();
    }

    private String log() throws Exception {
        Path f = dir.resolve("seed-runner.log");
        return Files.exists(f) ? Files.readString(f) : "";
    }
}

package dev.baton.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.router.policy.FirstCome;
import dev.baton.router.testing.Fleet;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real faults through the router: a runner behind it killed with SIGKILL mid-run, the router
 * itself killed with SIGKILL mid-run, and the server gone while a runner finishes (the router's
 * outbox). Jobs opt in to a retry when their runner is lost, as a user who wants that would.
 */
@Tag("slow")
class RouterFaultTest {
    private static final Map<String, Object> RETRY_WHEN_LOST =
            Map.of("retry", Map.of("max_attempts", 2, "retry_when_runner_lost", true));
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    Fleet fleet;

    @BeforeEach
    void start() {
        fleet = new Fleet(dir);
    }

    @AfterEach
    void stop() throws Exception {
        fleet.close();
    }

    private static List<String> sleepingJob(double seconds, String marker) {
        return List.of(
                "sh",
                "-c",
                "sleep " + seconds + "; echo '{\"bench\":{\"t\":{\"value\":1}}}'; echo " + marker + " > out.txt");
    }

    @Test
    void aRunnerKilledMidRunIsReportedLostAndItsJobIsFinishedByAnother() throws Exception {
        Router router = fleet.router(
                new FirstCome(),
                RouterSettings.defaults("router").withHeartbeatTimeout(Duration.ofSeconds(2)),
                Clock.systemUTC());
        URI url = Fleet.url(router);
        Process doomed = fleet.agentProcess(url, "r1");
        // The first attempt runs long (and is killed); the second, seeing the first's marker, is quick.
        Path marker = dir.resolve("first-attempt-started");
        List<String> cmd = List.of(
                "sh",
                "-c",
                "if [ -e " + marker + " ]; then echo '{\"bench\":{\"t\":{\"value\":1}}}'; echo done > out.txt;"
                        + " else touch " + marker + "; sleep 60; fi");
        String job = fleet.submit(
                "alpha",
                cmd,
                Map.of(
                        "retry",
                        Map.of("max_attempts", 2, "retry_when_runner_lost", true),
                        "file_paths",
                        List.of("out.txt")));
        fleet.awaitStatus("alpha", job, "running", WAIT);

        doomed.destroyForcibly().waitFor();
        fleet.agent(url, "r2");
        await().atMost(WAIT).until(() -> fleet.job("alpha", job).get("attempts").size() == 2);
        JsonNode first = fleet.job("alpha", job).get("attempts").get(0);
        assertThat(first.get("outcome").asText()).isEqualTo("lost");
        JsonNode done = fleet.awaitStatus("alpha", job, "processed", Duration.ofSeconds(90));
        assertThat(done.at("/output/results/0/output/out.txt").asText()).isEqualTo("done\n");
        assertThat(done.get("error") == null || done.get("error").isNull()).isTrue();
        await().atMost(WAIT).until(() -> router.status().jobs().isEmpty());
    }

    @Test
    void aRunnerKilledBeforeItStartsHasItsJobOfferedToAnotherWithoutFailingIt() throws Exception {
        Router router = fleet.router(
                new FirstCome(),
                RouterSettings.defaults("router").withHeartbeatTimeout(Duration.ofSeconds(2)),
                Clock.systemUTC());
        URI url = Fleet.url(router);
        Process doomed = fleet.agentProcess(url, "r1");
        await().atMost(WAIT)
                .until(() -> router.status().runners().stream().anyMatch(r -> r.connected() && r.free() > 0));
        doomed.destroyForcibly().waitFor();
        // r1's ready is still counted until its connection is seen closed; a job may reach it dead
        String job = fleet.submit("alpha", sleepingJob(0.1, "ok"), Map.of("file_paths", List.of("out.txt")));
        fleet.agent(url, "r2");
        JsonNode done = fleet.awaitStatus("alpha", job, "processed", WAIT);
        assertThat(done.at("/output/results/0/output/out.txt").asText()).isEqualTo("ok\n");
        assertThat(done.get("attempts").get(0).get("outcome").asText()).isEqualTo("completed");
    }

    @Test
    void theRouterKilledMidRunIsLostUpstreamAndTheServerRequeuesItsJob() throws Exception {
        var routerProcess = fleet.routerProcess(0);
        URI url = URI.create("http://127.0.0.1:" + routerProcess.getValue());
        fleet.agent(url, "r1");
        String job = fleet.submit(
                "alpha",
                sleepingJob(4, "second"),
                Map.of(
                        "retry",
                        Map.of("max_attempts", 2, "retry_when_runner_lost", true),
                        "file_paths",
                        List.of("out.txt")));
        fleet.awaitStatus("alpha", job, "running", WAIT);

        routerProcess.getKey().destroyForcibly().waitFor();
        // The server's own rules: the router's channel went silent, its running job is lost and
        // (opted in) goes back to the queue as a new attempt.
        await().atMost(WAIT)
                .until(() -> fleet.job("alpha", job).get("attempts").size() == 2
                        || fleet.job("alpha", job).get("status").asText().equals("pending"));
        assertThat(fleet.job("alpha", job).get("attempts").get(0).get("outcome").asText())
                .isEqualTo("lost");

        // A router started again on the same port: its runner reconnects and runs the new attempt.
        fleet.routerProcess(routerProcess.getValue());
        JsonNode done = fleet.awaitStatus("alpha", job, "processed", Duration.ofSeconds(90));
        assertThat(done.get("attempts")).hasSize(2);
        assertThat(done.at("/output/results/0/output/out.txt").asText()).isEqualTo("second\n");
    }

    @Test
    void aResultFinishedWhileTheServerIsAwayIsResentFromTheOutboxWhenItComesBack() throws Exception {
        Router router = fleet.router(new FirstCome(), RouterSettings.defaults("router"), Clock.systemUTC());
        fleet.agent(Fleet.url(router), "r1");
        String job = fleet.submit("alpha", sleepingJob(2, "kept"), Map.of("file_paths", List.of("out.txt")));
        fleet.awaitStatus("alpha", job, "running", WAIT);

        fleet.server.stop();
        // The runner finishes meanwhile; the router owes the result upstream and keeps it on disk.
        Path outbox = dir.resolve("router-state").resolve("outbox");
        await().atMost(WAIT).until(() -> {
            try (Stream<Path> files = Files.list(outbox)) {
                return files.anyMatch(p -> p.getFileName().toString().equals(job + ".result.json"));
            }
        });
        assertThat(router.status().jobs())
                .singleElement()
                .satisfies(j -> assertThat(j.state()).isEqualTo("finishing"));

        fleet.server.start();
        JsonNode done = fleet.awaitStatus("alpha", job, "processed", WAIT);
        assertThat(done.at("/output/results/0/output/out.txt").asText()).isEqualTo("kept\n");
        await().atMost(WAIT).until(() -> router.status().jobs().isEmpty());
        try (Stream<Path> files = Files.list(outbox)) {
            assertThat(files.filter(p -> p.toString().endsWith(".result.json"))).isEmpty();
        }
    }
}

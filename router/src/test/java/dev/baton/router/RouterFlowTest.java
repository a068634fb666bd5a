package dev.baton.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.policy.FirstCome;
import dev.baton.router.testing.Fleet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real server, a real router and three unmodified runner agents behind it, all over real
 * sockets: jobs go through with their results, the router's keys are its own, and its status and
 * metrics show its runners and jobs.
 */
class RouterFlowTest {
    @TempDir
    Path dir;

    Fleet fleet;
    Router router;

    @BeforeEach
    void start() {
        fleet = new Fleet(dir);
        router = fleet.router(new FirstCome(), RouterSettings.defaults("router"), Clock.systemUTC());
    }

    @AfterEach
    void stop() throws Exception {
        fleet.close();
    }

    @Test
    void jobsFlowThroughTheRouterToThreeRunnersWithTheirResults() throws Exception {
        URI url = Fleet.url(router);
        for (int i = 1; i <= 3; i++) fleet.agent(url, "r" + i);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> router.status().runners().stream()
                                .filter(RouterStatus.RunnerRow::connected)
                                .count()
                        == 3);

        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            jobs.add(fleet.submit(
                    i % 2 == 0 ? "alpha" : "beta",
                    List.of(
                            "sh",
                            "-c",
                            "sleep 0.3; echo '{\"bench\":{\"latency\":{\"value\":" + i + "}}}'; echo out-" + i
                                    + " > out.txt"),
                    Map.of("file_paths", List.of("out.txt"))));
        }
        for (int i = 0; i < jobs.size(); i++) {
            JsonNode done =
                    fleet.awaitStatus(i % 2 == 0 ? "alpha" : "beta", jobs.get(i), "processed", Duration.ofSeconds(60));
            assertThat(done.at("/output/results/0/exit_code").asInt()).isZero();
            assertThat(done.at("/output/results/0/output/out.txt").asText()).isEqualTo("out-" + i + "\n");
            assertThat(done.get("started").asText()).isNotEmpty();
            // the server sees one runner: the router
            assertThat(done.at("/runner").asText()).isEqualTo(fleet.routerUuid);
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> router.status().jobs().isEmpty());
        String metrics = http(url.resolve("/metrics"));
        // Three runners behind the router ran them; upstream they were all the router's.
        for (String r : List.of("r1", "r2", "r3"))
            assertThat(metrics).containsPattern("baton_router_jobs_started_total\\{runner=\"" + r + "\"} [1-9]");
        assertThat(metrics)
                .contains("baton_router_jobs_received_total 9.0")
                .contains("baton_router_results_acknowledged_total 9.0")
                .contains("baton_router_runners_connected 3.0")
                .contains("baton_router_upstream_connected 1.0");
        String status = http(url.resolve("/status"));
        assertThat(status).contains("\"upstream_connected\":true").contains("\"name\":\"r1\"");
        assertThat(status + metrics + http(url.resolve("/"))).doesNotContain(fleet.routerKey.reveal());
    }

    @Test
    void aPairedRunFlowsThroughTheRouterAndIsJudged() throws Exception {
        // Issue 45: the paired config is part of the job config the router forwards unchanged.
        URI url = Fleet.url(router);
        fleet.agent(url, "r1");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> router.status().runners().stream().anyMatch(RouterStatus.RunnerRow::connected));
        JsonNode created = fleet.server.post(
                "/v0/run",
                Map.of(
                        "project",
                        "alpha",
                        "spec",
                        "host",
                        "cmd",
                        List.of("sh", "-c", "echo '{\"sort\":{\"latency\":{\"value\":200}}}'"),
                        "baseline",
                        Map.of("cmd", List.of("sh", "-c", "echo '{\"sort\":{\"latency\":{\"value\":100}}}'")),
                        "pairs",
                        3,
                        "timeout",
                        120,
                        "adapter",
                        "json"));
        JsonNode done =
                fleet.awaitStatus("alpha", created.at("/job/uuid").asText(), "processed", Duration.ofSeconds(60));
        assertThat(done.at("/runner").asText()).isEqualTo(fleet.routerUuid);
        JsonNode paired = fleet.server
                .get("/v0/projects/alpha/reports/" + created.at("/report/uuid").asText())
                .get("paired");
        assertThat(paired.get("pairs").asInt()).isEqualTo(3);
        for (JsonNode run : paired.get("runs")) {
            assertThat(run.at("/baseline/sort/latency/value").asInt()).isEqualTo(100);
            assertThat(run.at("/candidate/sort/latency/value").asInt()).isEqualTo(200);
        }
        assertThat(paired.at("/verdicts/0/verdict").asText()).isEqualTo("slower");
    }

    @Test
    void theRouterTakesOnlyItsOwnKeysAndARotatedKeyIsRefused() throws Exception {
        URI url = Fleet.url(router);
        RunnerKey first = fleet.runnerKey("r1");
        try (var ok = new dev.baton.router.testing.RawRunner(url, "r1", first.reveal())) {
            var welcome = ok.expect(dev.baton.protocol.message.ServerMessage.Welcome.class);
            assertThat(welcome.specs()).containsExactly("host");
            assertThat(welcome.maxMessageBytes())
                    .as("the limit a runner cuts its results to, as a server's welcome says")
                    .isNotNull()
                    .isPositive();
        }
        // the router's own upstream key is not a key of the router's runners
        assertRefused(url, "r1", fleet.routerKey.reveal());
        assertRefused(url, "nobody", first.reveal());
        RunnerKey rotated = fleet.runnerKey("r1");
        assertRefused(url, "r1", first.reveal());
        try (var ok = new dev.baton.router.testing.RawRunner(url, "r1", rotated.reveal())) {
            ok.expect(dev.baton.protocol.message.ServerMessage.Welcome.class);
        }
    }

    private static void assertRefused(URI url, String runner, String key) {
        try {
            new dev.baton.router.testing.RawRunner(url, runner, key).close();
            throw new AssertionError("connected with a refused key");
        } catch (CompletionException e) {
            assertThat(e.getCause()).isInstanceOf(WebSocketHandshakeException.class);
            assertThat(((WebSocketHandshakeException) e.getCause())
                            .getResponse()
                            .statusCode())
                    .isEqualTo(401);
            // so that the runner names the router's command for a new key, not the server's
            assertThat(((WebSocketHandshakeException) e.getCause())
                            .getResponse()
                            .headers()
                            .firstValue(dev.baton.channelclient.connection.ChannelClient.REFUSED_BY))
                    .contains("router");
        }
    }

    private static String http(URI uri) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
                    .body();
        }
    }
}

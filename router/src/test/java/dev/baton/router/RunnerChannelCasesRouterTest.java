package dev.baton.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.protocol.model.ClaimedJob;
import dev.baton.router.policy.FirstCome;
import dev.baton.router.testing.Fleet;
import dev.baton.router.testing.RawRunner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The cases against a router in front of the server: the same answers, one each. */
class RunnerChannelCasesRouterTest extends RunnerChannelCases {
    final RouterProtocolTest.HandClock clock = new RouterProtocolTest.HandClock();
    Router router;

    @Override
    RawRunner connect() {
        router = fleet.router(new FirstCome(), RouterSettings.defaults("router"), clock);
        return new RawRunner(Fleet.url(router), "r1", fleet.runnerKey("r1").reveal());
    }

    /**
     * Beyond the answer: the router does not take the canceled job on again (issue 40: it showed it
     * running in /status and, when the runner left, reported it lost upstream).
     */
    @Test
    void aLateRunningOfACanceledJobIsNotTakenOnAgain() throws Exception {
        ClaimedJob job = canceledAndAnsweredThenLateRunning();
        assertThat(router.status().jobs()).as("jobs the router holds").isEmpty();

        // A silent second runner: its read timeout closing it shows that the router's timer ran past the first one's
        // heartbeat timeout.
        try (RawRunner silent =
                new RawRunner(Fleet.url(router), "r2", fleet.runnerKey("r2").reveal())) {
            runner.close();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> router.status().runners().stream()
                                    .filter(r -> r.connected())
                                    .count()
                            == 1);
            clock.advance(RouterSettings.defaults("router").heartbeatTimeout().plusSeconds(1));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> silent.closeCode() == DownstreamRunners.CLOSE_HEARTBEAT_TIMEOUT);
        }
        assertThat(router.status().jobs()).as("jobs the router holds").isEmpty();
        assertThat(metric("baton_router_runner_jobs_lost_total"))
                .as("jobs reported lost, job %s", job.uuid())
                .isZero();
    }

    private double metric(String name) throws Exception {
        String text = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(Fleet.url(router) + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return text.lines()
                .filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }
}

package dev.baton.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.router.policy.FairShare;
import dev.baton.router.policy.FirstCome;
import dev.baton.router.policy.SchedulingPolicy;
import dev.baton.router.testing.Fleet;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fair share through the router against a real server and three real runners: project alpha
 * submits its whole batch before beta, so first-come gives alpha the runners first, while fair
 * share with weights 1 (alpha) and 3 (beta) gives beta about three quarters of the runner time
 * while both have work. Runner time is read from the server's attempts (started to ended).
 */
class FairShareTest {
    /** The window: the first jobs to start, while both projects still have plenty pending. */
    private static final int WINDOW = 16;

    private static final int PER_PROJECT = 18;

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

    @Test
    void weightsOneAndThreeGiveAboutAQuarterAndThreeQuartersOfTheRunnerTime() {
        var weights = Map.of(
                ProjectUuid.parse(fleet.projectUuid("alpha")), 1.0, ProjectUuid.parse(fleet.projectUuid("beta")), 3.0);
        double beta = betaShare(new FairShare(weights, 1.0));
        assertThat(beta).as("beta's share of the runner time").isBetween(0.6, 0.9);
    }

    @Test
    void firstComeGivesTheRunnersToTheProjectThatSubmittedFirst() {
        double beta = betaShare(new FirstCome());
        assertThat(beta).as("beta's share of the runner time").isLessThan(0.2);
    }

    /** Runs the batch through a router with {@code policy}; returns beta's share of runner time over the window. */
    private double betaShare(SchedulingPolicy policy) {
        // submitted before any runner is there, so that the order of submission is all the server knows
        List<String[]> jobs = new ArrayList<>();
        for (String project : List.of("alpha", "beta")) {
            for (int i = 0; i < PER_PROJECT; i++) {
                jobs.add(new String[] {
                    project, fleet.submit(project, List.of("sh", "-c", "sleep 0.3; echo '{}'"), Map.of())
                });
            }
        }
        Router router = fleet.router(policy, RouterSettings.defaults("router"), Clock.systemUTC());
        URI url = Fleet.url(router);
        for (int i = 1; i <= 3; i++) fleet.agent(url, "r" + i);

        record Ran(String project, Instant started, Instant ended) {}
        List<Ran> ran = new ArrayList<>();
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    ran.clear();
                    for (String[] j : jobs) {
                        JsonNode job = fleet.job(j[0], j[1]);
                        JsonNode attempts = job.get("attempts");
                        if (attempts == null || attempts.isEmpty()) continue;
                        JsonNode last = attempts.get(attempts.size() - 1);
                        if (!last.hasNonNull("started") || !last.hasNonNull("ended")) continue;
                        ran.add(new Ran(
                                j[0],
                                Instant.parse(last.get("started").asText()),
                                Instant.parse(last.get("ended").asText())));
                    }
                    return ran.size() >= WINDOW + 3;
                });
        ran.sort(Comparator.comparing(Ran::started));
        double alpha = 0, beta = 0;
        for (Ran r : ran.subList(0, WINDOW)) {
            double seconds = Duration.between(r.started(), r.ended()).toNanos() / 1e9;
            if (r.project().equals("beta")) beta += seconds;
            else alpha += seconds;
        }
        double share = beta / (alpha + beta);
        // the figure docs/router.md quotes
        System.out.printf(
                "%s: beta had %.2f of the runner time of the first %d jobs%n", policy.describe(), share, WINDOW);
        return share;
    }
}

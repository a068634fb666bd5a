package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.TestDatabases;
import dev.baton.server.testing.TestImages;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two server nodes on one PostgreSQL schema, one clock: each occurrence of a schedule is
 * submitted by exactly one of them, although both sweep (in the background every second, and
 * here also both at once on purpose); after both were down, the missed occurrences are one run.
 */
@Tag("postgres")
class PostgresScheduleTest {
    @TempDir
    Path dirA;

    @TempDir
    Path dirB;

    @BeforeAll
    static void requirePostgres() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping the two-node schedule test");
    }

    @Test
    void eachOccurrenceFiresOnceAcrossTwoNodesAndMissedOnesAreOneRunAfterDowntime() throws Exception {
        String schema = TestDatabases.freshPostgresSchema();
        MutableClock clock = new MutableClock(TestServer.START);
        int occurrences = 12;
        try (TestServer a = new TestServer(dirA, schema, clock);
                TestServer b = new TestServer(dirB, schema, clock)) {
            Fixtures.organization(a, "org", "team");
            JsonNode project = Fixtures.project(a, "proj", "org");
            // Each node here has its own data directory; in a cluster the registry storage is shared.
            TestImages.push(b.dataDir, ProjectUuid.parse(project.path("uuid").asText()), "", "v1", TestImages.BENCH);
            Fixtures.spec(a, "small");
            Fixtures.created(a.post(
                    "/v0/schedules",
                    ScheduleApiTest.schedule(
                            "five", "*/5 * * * *", "UTC", Fixtures.runBody("proj", "small", java.util.Map.of()))));
            for (int i = 1; i <= occurrences; i++) {
                clock.advance(Duration.ofMinutes(5));
                CyclicBarrier together = new CyclicBarrier(2);
                CompletableFuture<Integer> firedA = CompletableFuture.supplyAsync(() -> fireAfter(together, a));
                CompletableFuture<Integer> firedB = CompletableFuture.supplyAsync(() -> fireAfter(together, b));
                int explicit = firedA.get() + firedB.get();
                assertThat(explicit)
                        .as("occurrence %d: the two nodes together (the background sweep may have come first)", i)
                        .isLessThanOrEqualTo(1);
                awaitSubmitted(a, b, i);
            }
            Thread.sleep(1_300); // a background sweep of each node more: still nothing more fires
            assertThat(a.submitted.size() + b.submitted.size()).isEqualTo(occurrences);
        }

        // Both nodes down for an hour: twelve occurrences pass unseen, then one run on restart.
        clock.advance(Duration.ofHours(1).plusMinutes(2));
        try (TestServer a = new TestServer(dirA, schema, clock);
                TestServer b = new TestServer(dirB, schema, clock)) {
            assertThat(a.server.fireDueSchedules() + b.server.fireDueSchedules())
                    .isLessThanOrEqualTo(1);
            awaitSubmitted(a, b, 1);
            Thread.sleep(1_300);
            assertThat(a.submitted.size() + b.submitted.size()).isEqualTo(1);
            JsonNode schedule = a.get("/v0/schedules/five").json();
            assertThat(schedule.path("next_fire").asText())
                    .isEqualTo(clock.instant().plus(Duration.ofMinutes(3)).toString());
            assertThat(schedule.hasNonNull("last_error"))
                    .as(schedule.toString())
                    .isFalse();
            assertThat(a.get("/v0/projects/proj/reports/"
                                    + schedule.path("last_report").asText())
                            .status())
                    .isEqualTo(200);
        }
    }

    private static int fireAfter(CyclicBarrier together, TestServer node) {
        try {
            together.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return node.server.fireDueSchedules();
    }

    /** Waits (up to 5 s) until the two nodes together submitted {@code n} runs; the check itself is exact. */
    private static void awaitSubmitted(TestServer a, TestServer b, int n) throws InterruptedException {
        for (int i = 0; i < 500 && a.submitted.size() + b.submitted.size() < n; i++) Thread.sleep(10);
        List<Integer> counts = List.of(a.submitted.size(), b.submitted.size());
        assertThat(counts.get(0) + counts.get(1))
                .as(
                        "runs submitted by node A and B: %s; the schedule: %s",
                        counts, a.get("/v0/schedules").text())
                .isEqualTo(n);
    }
}

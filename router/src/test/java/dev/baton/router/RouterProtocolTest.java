package dev.baton.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.router.policy.FirstCome;
import dev.baton.router.testing.Fleet;
import dev.baton.router.testing.RawRunner;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router's protocol rules, checked message by message with hand-driven runners over real
 * sockets against a real server; the router's clock is moved by hand, so its 30 s acceptance
 * window is tested without waiting for it.
 */
class RouterProtocolTest {
    @TempDir
    Path dir;

    Fleet fleet;
    final HandClock clock = new HandClock();
    Router router;
    URI url;

    /** A clock the test moves (the router reads time only through it). */
    static final class HandClock extends Clock {
        private volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    @BeforeEach
    void start() {
        fleet = new Fleet(dir);
        router = fleet.router(
                new FirstCome(), RouterSettings.defaults("router").withHeartbeatTimeout(Duration.ofMinutes(10)), clock);
        url = Fleet.url(router);
    }

    @AfterEach
    void stop() throws Exception {
        fleet.close();
    }

    private RawRunner runner(String name) {
        RawRunner r = new RawRunner(url, name, fleet.runnerKey(name).reveal());
        r.expect(ServerMessage.Welcome.class);
        return r;
    }

    private static RunnerMessage.Ready ready() {
        return new RunnerMessage.Ready(900, "linux", "x86_64", "test", 1);
    }

    private String submit() {
        return fleet.submit("alpha", List.of("true"), Map.of());
    }

    @Test
    void aJobNoRunnerAcceptsWithinTheWindowIsDeclinedUpstreamAndTheRunnerToldItIsStale() {
        try (RawRunner r1 = runner("r1")) {
            r1.send(ready());
            String job = submit();
            ClaimedJob claimed = r1.expect(ServerMessage.Job.class).job();
            assertThat(claimed.uuid().toString()).isEqualTo(job);
            assertThat(fleet.job("alpha", job).get("status").asText()).isEqualTo("claimed");

            clock.advance(Duration.ofSeconds(31));
            ServerMessage.Stale stale = r1.expectSkippingAcks(ServerMessage.Stale.class);
            assertThat(stale.reason()).isEqualTo("acceptance_timeout");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fleet.job("alpha", job).get("attempts").get(0).hasNonNull("outcome"));
            JsonNode attempt = fleet.job("alpha", job).get("attempts").get(0);
            assertThat(attempt.get("outcome").asText()).isEqualTo("declined");
            assertThat(attempt.get("decline_reason").asText())
                    .contains("no runner behind router router accepted it within 30 s");
        }
    }

    @Test
    void preparingKeepsTheJobAliveUpstreamAndAtTheRouter() {
        try (RawRunner r1 = runner("r1")) {
            r1.send(ready());
            String job = submit();
            ClaimedJob claimed = r1.expect(ServerMessage.Job.class).job();
            for (int i = 0; i < 3; i++) {
                clock.advance(Duration.ofSeconds(20));
                r1.send(new RunnerMessage.Preparing(claimed.uuid(), claimed.lease(), "pulling"));
                assertThat(r1.expect(ServerMessage.Ack.class).job()).isEqualTo(claimed.uuid());
            }
            r1.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
            assertThat(r1.expect(ServerMessage.Ack.class).job()).isEqualTo(claimed.uuid());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fleet.job("alpha", job).get("status").asText().equals("running"));
        }
    }

    @Test
    void aDeclinedJobGoesToAnotherRunnerUnderTheSameLeaseAndOnlyItsHolderMaySpeakForIt() {
        try (RawRunner r1 = runner("r1");
                RawRunner r2 = runner("r2")) {
            r1.send(ready());
            String job = submit();
            ClaimedJob claimed = r1.expect(ServerMessage.Job.class).job();
            r1.send(new RunnerMessage.Declined(
                    claimed.uuid(), claimed.lease(), DeclineCode.PULL_FAILED, "registry down"));
            r1.expect(ServerMessage.Ack.class);

            r2.send(ready());
            ClaimedJob again = r2.expect(ServerMessage.Job.class).job();
            assertThat(again.uuid()).isEqualTo(claimed.uuid());
            assertThat(again.lease()).isEqualTo(claimed.lease());

            // r1 let it go: anything it says about the job is stale and changes nothing upstream
            r1.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
            assertThat(r1.expect(ServerMessage.Stale.class).job()).isEqualTo(claimed.uuid());
            assertThat(fleet.job("alpha", job).get("status").asText()).isEqualTo("claimed");
            // a wrong lease from the holder is stale too
            r2.send(new RunnerMessage.Running(claimed.uuid(), dev.baton.protocol.id.LeaseId.random()));
            assertThat(r2.expect(ServerMessage.Stale.class).reason()).isEqualTo("lease is not valid for this job");

            r2.send(new RunnerMessage.Running(again.uuid(), again.lease()));
            r2.expect(ServerMessage.Ack.class);
            r2.send(new RunnerMessage.Completed(
                    again.uuid(), again.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
            assertThat(r2.expect(ServerMessage.Ack.class).job()).isEqualTo(again.uuid());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fleet.job("alpha", job).get("status").asText().equals("processed"));
            assertThat(fleet.job("alpha", job).get("attempts")).hasSize(1);
        }
    }

    @Test
    void whenEveryRunnerDeclinesTheRouterDeclinesUpstreamWithTheRunnersCode() {
        try (RawRunner r1 = runner("r1")) {
            r1.send(ready());
            String job = submit();
            ClaimedJob claimed = r1.expect(ServerMessage.Job.class).job();
            // the runner's machine fingerprint travels upstream with the router's decline
            var fingerprint = new dev.baton.protocol.model.MachineFingerprint(
                    java.time.Instant.parse("2026-11-24T07:00:00Z"),
                    "Router Test CPU",
                    2,
                    "0-1",
                    null,
                    null,
                    null,
                    "6.1.0",
                    null,
                    null,
                    null,
                    null,
                    null,
                    "process",
                    null,
                    "test",
                    List.of());
            r1.send(new RunnerMessage.Declined(
                    claimed.uuid(),
                    claimed.lease(),
                    DeclineCode.IMAGE_REFUSED.wireName(),
                    "wrong architecture",
                    fingerprint));
            r1.expect(ServerMessage.Ack.class);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fleet.job("alpha", job).get("attempts").get(0).hasNonNull("outcome"));
            JsonNode attempt = fleet.job("alpha", job).get("attempts").get(0);
            assertThat(attempt.get("decline_code").asText()).isEqualTo("image_refused");
            assertThat(attempt.get("decline_reason").asText()).contains("r1: wrong architecture");
            assertThat(attempt.path("fingerprint").path("cpu_model").asText()).isEqualTo("Router Test CPU");
        }
    }

    @Test
    void logsPassThroughAndACancelReachesTheRunnerHoldingTheJob() {
        try (RawRunner r1 = runner("r1")) {
            r1.send(ready());
            String job = submit();
            ClaimedJob claimed = r1.expect(ServerMessage.Job.class).job();
            r1.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
            r1.expect(ServerMessage.Ack.class);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fleet.job("alpha", job).get("status").asText().equals("running"));
            // live output passes through to the server's tail of the job
            r1.send(RunnerMessage.Log.text(
                    claimed.uuid(),
                    claimed.lease(),
                    1,
                    dev.baton.protocol.message.LogStream.STDOUT,
                    0,
                    "through the router\n"));
            assertThat(r1.expect(ServerMessage.Ack.class).job()).isEqualTo(claimed.uuid());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fleet.server
                            .get("/v0/projects/alpha/jobs/" + job + "/logs")
                            .toString()
                            .contains("through the router"));
            fleet.server.post("/v0/projects/alpha/jobs/" + job + "/cancel", Map.of());
            ServerMessage.Cancel cancel = r1.expectSkippingAcks(ServerMessage.Cancel.class);
            assertThat(cancel.lease()).isEqualTo(claimed.lease());
            r1.send(new RunnerMessage.Canceled(claimed.uuid(), claimed.lease(), List.of()));
            r1.expectSkippingAcks(ServerMessage.Ack.class);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> router.status().jobs().isEmpty());
            assertThat(fleet.job("alpha", job).get("status").asText()).isEqualTo("canceled");
        }
    }

    @Test
    void aRunnerThatGoesSilentWhileRunningIsClosedAndItsJobReportedLost() {
        try (RawRunner r1 = runner("r1")) {
            r1.send(ready());
            String job = submit();
            ClaimedJob claimed = r1.expect(ServerMessage.Job.class).job();
            r1.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
            r1.expect(ServerMessage.Ack.class);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fleet.job("alpha", job).get("status").asText().equals("running"));

            clock.advance(Duration.ofMinutes(10)); // the router's heartbeat timeout, with no word from r1
            await().atMost(Duration.ofSeconds(10)).until(() -> r1.closeCode() == 4002);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fleet.job("alpha", job).get("status").asText().equals("failed"));
            JsonNode failed = fleet.job("alpha", job);
            assertThat(failed.get("attempts").get(0).get("outcome").asText()).isEqualTo("lost");
            assertThat(failed.get("error").asText()).contains("lost contact with runner r1 behind router router");
        }
    }

    @Test
    void aRouterRestartedInTimeTakesOnTheJobsItsRunnersCarryOn() {
        RawRunner r1 = runner("r1");
        r1.send(ready());
        String job = submit();
        ClaimedJob claimed = r1.expect(ServerMessage.Job.class).job();
        r1.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        r1.expect(ServerMessage.Ack.class);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> fleet.job("alpha", job).get("status").asText().equals("running"));

        int port = router.port();
        router.close();
        r1.close();
        // a new router on the same port and state, within the server's heartbeat timeout (3 s)
        router = fleet.router(
                new FirstCome(),
                RouterSettings.defaults("router").withHeartbeatTimeout(Duration.ofMinutes(10)),
                clock,
                port);
        try (RawRunner back = runner("r1")) {
            back.send(new RunnerMessage.Heartbeat(claimed.uuid(), claimed.lease()));
            assertThat(back.expect(ServerMessage.Ack.class).job()).isEqualTo(claimed.uuid());
            back.send(new RunnerMessage.Completed(
                    claimed.uuid(), claimed.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
            assertThat(back.expectSkippingAcks(ServerMessage.Ack.class).job()).isEqualTo(claimed.uuid());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fleet.job("alpha", job).get("status").asText().equals("processed"));
            assertThat(fleet.job("alpha", job).get("attempts")).hasSize(1);

            // a made-up lease for a job the router does not hold is not taken on: the server says stale
            back.send(new RunnerMessage.Heartbeat(claimed.uuid(), dev.baton.protocol.id.LeaseId.random()));
            assertThat(back.expectSkippingAcks(ServerMessage.Stale.class).job()).isEqualTo(claimed.uuid());
        }
    }
}

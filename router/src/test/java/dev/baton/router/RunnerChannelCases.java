package dev.baton.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.router.testing.Fleet;
import dev.baton.router.testing.RawRunner;
import dev.baton.server.testing.TestImages;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner protocol's cases about jobs that ended, moved or were canceled, played by a
 * hand-driven runner against a real server, and then against a router in front of the same
 * server: a runner behind a router must get what a server gives, as its one answer (docs/router.md).
 * "One answer": right after it, a bare heartbeat is answered {@code ack} and nothing comes between,
 * because a server (and so a router) answers a connection's messages in their order.
 */
abstract class RunnerChannelCases {
    @TempDir
    Path dir;

    Fleet fleet;
    RawRunner runner;

    /** Connects the runner under test (to the server itself, or to a router). */
    abstract RawRunner connect();

    @BeforeEach
    void start() {
        fleet = new Fleet(dir);
        runner = connect();
        runner.expect(ServerMessage.Welcome.class);
    }

    @AfterEach
    void stop() throws Exception {
        runner.close();
        fleet.close();
    }

    /** The next message is {@code type} and it is the whole answer. */
    <T extends ServerMessage> T answer(Class<T> type) {
        T answer = runner.expect(type);
        runner.send(new RunnerMessage.Heartbeat(null, null));
        assertThat(runner.expect(ServerMessage.Ack.class).job())
                .as("the bare heartbeat's ack, next")
                .isNull();
        return answer;
    }

    ClaimedJob started() {
        runner.send(new RunnerMessage.Ready(900, "linux", "x86_64", "test", 1));
        fleet.submit("alpha", List.of("true"), Map.of());
        ClaimedJob job = runner.expect(ServerMessage.Job.class).job();
        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
        return job;
    }

    static RunnerMessage.Completed completed(ClaimedJob job) {
        return new RunnerMessage.Completed(
                job.uuid(), job.lease(), List.of(new IterationResult(0, "{}", "", Map.of())));
    }

    @Test
    void aRunningJobCannotBeDeclined() {
        ClaimedJob job = started();
        runner.send(new RunnerMessage.Declined(job.uuid(), job.lease(), DeclineCode.PULL_FAILED, "too late"));
        assertThat(answer(ServerMessage.Error.class).code()).isEqualTo("cannot_decline");
        runner.send(completed(job));
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
        fleet.awaitStatus("alpha", job.uuid().toString(), "processed", Duration.ofSeconds(10));
    }

    @Test
    void messagesAboutAJobThatEndedAreStaleAndItsResultIsAcknowledgedAgain() {
        ClaimedJob job = started();
        runner.send(completed(job));
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
        fleet.awaitStatus("alpha", job.uuid().toString(), "processed", Duration.ofSeconds(10));

        runner.send(new RunnerMessage.Heartbeat(job.uuid(), job.lease()));
        assertThat(answer(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());
        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        assertThat(answer(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());
        runner.send(completed(job)); // a resend: applied once, acknowledged every time
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
    }

    @Test
    void aCanceledJobIsAnsweredCancelAndThenStale() {
        ClaimedJob job = started();
        fleet.server.post("/v0/projects/alpha/jobs/" + job.uuid() + "/cancel", Map.of());
        assertThat(runner.expect(ServerMessage.Cancel.class).lease()).isEqualTo(job.lease());

        runner.send(new RunnerMessage.Heartbeat(job.uuid(), job.lease()));
        assertThat(answer(ServerMessage.Cancel.class).job()).isEqualTo(job.uuid());
        runner.send(new RunnerMessage.Canceled(job.uuid(), job.lease(), List.of()));
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> fleet.job("alpha", job.uuid().toString())
                        .get("status")
                        .asText()
                        .equals("canceled"));

        runner.send(new RunnerMessage.Heartbeat(job.uuid(), job.lease()));
        assertThat(answer(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());
    }

    @Test
    void aFreshPullTokenIsTheServersAnswerWhileTheJobLivesAndStaleAfter() {
        ProjectUuid alpha = ProjectUuid.parse(
                fleet.server.get("/v0/projects/alpha").path("uuid").asText());
        String image = TestImages.push(dir.resolve("server"), alpha, "", "v1", TestImages.BENCH);
        runner.send(new RunnerMessage.Ready(900, "linux", "x86_64", "test", 1));
        fleet.submit("alpha", List.of("true"), Map.of("image", image));
        ClaimedJob job = runner.expect(ServerMessage.Job.class).job();

        runner.send(new RunnerMessage.PullToken(job.uuid(), job.lease()));
        ServerMessage.PullToken fresh = answer(ServerMessage.PullToken.class);
        assertThat(fresh.job()).isEqualTo(job.uuid());
        assertThat(fresh.token()).isNotBlank().isNotEqualTo(job.ociToken());

        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
        runner.send(completed(job));
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
        fleet.awaitStatus("alpha", job.uuid().toString(), "processed", Duration.ofSeconds(10));
        runner.send(new RunnerMessage.PullToken(job.uuid(), job.lease()));
        assertThat(answer(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());
    }

    @Test
    void aJobWithoutAnImageHasNoPullToken() {
        ClaimedJob job = started();
        assertThat(job.ociToken()).isNull();
        runner.send(new RunnerMessage.PullToken(job.uuid(), job.lease()));
        assertThat(answer(ServerMessage.Error.class).code()).isEqualTo("no_image");
        runner.send(completed(job));
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
    }

    /** The kinds of the next {@code n} messages, as {@code ack}, {@code stale}, {@code error:code}. */
    List<String> next(int n) {
        List<String> kinds = new ArrayList<>();
        for (int i = 0; i < n; i++) kinds.add(kind(runner.next(Duration.ofSeconds(20))));
        return kinds;
    }

    static String kind(ServerMessage m) {
        return switch (m) {
            case ServerMessage.Ack a -> a.job() == null ? "ack(bare)" : "ack";
            case ServerMessage.Error e -> "error:" + e.code();
            default -> m.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
        };
    }

    /**
     * Everything a runner may say about a job it has just finished, sent before the answer to its
     * result: once the result is taken the lease is over, so each is stale, and a resent result is
     * acknowledged again (issue 40: a router answered the log and the decline itself).
     */
    @Test
    void messagesSentBehindAResultAreAnsweredAsTheServerAnswersThem() {
        ClaimedJob job = started();
        runner.send(completed(job));
        runner.send(new RunnerMessage.Log(job.uuid(), job.lease(), 1, LogStream.STDOUT, 0, "late line", null));
        runner.send(new RunnerMessage.Heartbeat(job.uuid(), job.lease()));
        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        runner.send(new RunnerMessage.Preparing(job.uuid(), job.lease(), "late"));
        runner.send(new RunnerMessage.Declined(job.uuid(), job.lease(), DeclineCode.PULL_FAILED, "late"));
        runner.send(completed(job));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        assertThat(next(8)).containsExactly("ack", "stale", "stale", "stale", "stale", "stale", "ack", "ack(bare)");
    }

    /**
     * Attempt 1 failed and the job was retried as attempt 2 (here on the same runner, the one free
     * runner): the runner's resend of attempt 1's result is acknowledged, as the server took it
     * (issue 40: a router fenced it as stale by itself, not knowing the old attempt's outcome).
     */
    @Test
    void aResendOfAnEarlierAttemptsResultIsAnsweredAsTheServerAnswersIt() {
        runner.send(new RunnerMessage.Ready(900, "linux", "x86_64", "test", 1));
        fleet.submit("alpha", List.of("true"), Map.of("retry", Map.of("max_attempts", 2, "backoff_seconds", 0)));
        ClaimedJob first = runner.expect(ServerMessage.Job.class).job();
        runner.send(new RunnerMessage.Running(first.uuid(), first.lease()));
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(first.uuid());
        RunnerMessage.Failed failed = new RunnerMessage.Failed(
                first.uuid(), first.lease(), List.of(new IterationResult(1, "", "", Map.of())), "exit 1");
        runner.send(failed);
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(first.uuid());

        runner.send(new RunnerMessage.Ready(900, "linux", "x86_64", "test", 1));
        ClaimedJob second = runner.expect(ServerMessage.Job.class).job();
        assertThat(second.uuid()).isEqualTo(first.uuid());
        assertThat(second.attempt()).isEqualTo(2);
        runner.send(failed);
        runner.send(new RunnerMessage.Heartbeat(null, null));
        assertThat(next(2)).containsExactly("ack", "ack(bare)");
        // The new attempt is untouched by the old one's resend.
        runner.send(new RunnerMessage.Running(second.uuid(), second.lease()));
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(second.uuid());
    }

    /**
     * A job canceled and answered, then a late {@code running}: the server answers {@code cancel}
     * again (the job is canceled; stop), and nothing takes the job on again.
     */
    ClaimedJob canceledAndAnsweredThenLateRunning() {
        ClaimedJob job = started();
        fleet.server.post("/v0/projects/alpha/jobs/" + job.uuid() + "/cancel", Map.of());
        assertThat(runner.expect(ServerMessage.Cancel.class).lease()).isEqualTo(job.lease());
        runner.send(new RunnerMessage.Canceled(job.uuid(), job.lease(), List.of()));
        assertThat(answer(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> fleet.job("alpha", job.uuid().toString())
                        .get("status")
                        .asText()
                        .equals("canceled"));

        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        assertThat(next(2)).containsExactly("cancel", "ack(bare)");
        return job;
    }

    @Test
    void aLateRunningOfACanceledJobIsAnsweredCancel() {
        canceledAndAnsweredThenLateRunning();
    }

    /**
     * The server cancels the job while the runner's result is on its way: whatever the order, the
     * result's answer comes before the answer to the bare heartbeat sent after it (a cancel may come
     * first, pushed) (issue 40: a router gave the cancel as the answer, then the
     * bare heartbeat's ack, then the result's real ack). Raced over many trials, as the cancel lands
     * at a different point each time.
     */
    @Test
    void aCancelRacingTheResultDoesNotReorderTheAnswers() throws Exception {
        for (int trial = 0; trial < 64; trial++) {
            ClaimedJob job = started();
            Thread cancel = Thread.ofVirtual().start(() -> {
                try {
                    fleet.server.post("/v0/projects/alpha/jobs/" + job.uuid() + "/cancel", Map.of());
                } catch (AssertionError tooLate) {
                    // The job had ended: nothing to cancel, which is one of the orders under test.
                }
            });
            runner.send(completed(job));
            runner.send(new RunnerMessage.Heartbeat(null, null));
            List<String> got = new ArrayList<>();
            while (got.isEmpty() || !got.getLast().equals("ack(bare)"))
                got.add(kind(runner.next(Duration.ofSeconds(20))));
            cancel.join();
            // A pushed cancel may come anywhere (the server sends it when the cancel happens); the answers keep their
            // order.
            assertThat(got.stream().filter(k -> !k.equals("cancel")).toList())
                    .as("trial %d: %s", trial, got)
                    .containsExactly("ack", "ack(bare)");
            runner.send(new RunnerMessage.Heartbeat(null, null));
            List<String> after = new ArrayList<>();
            while (after.isEmpty() || !after.getLast().equals("ack(bare)"))
                after.add(kind(runner.next(Duration.ofSeconds(20))));
            assertThat(after.stream().filter(k -> !k.equals("cancel")).toList())
                    .as("trial %d: %s then %s", trial, got, after)
                    .containsExactly("ack(bare)");
        }
    }
}

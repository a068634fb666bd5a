package dev.baton.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.router.testing.Fleet;
import dev.baton.router.testing.RawRunner;
import java.nio.file.Path;
import java.time.Duration;
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
        assertThat(runner.expect(ServerMessage.Ack.class).job()).as("the bare heartbeat's ack, next").isNull();
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
        return new RunnerMessage.Completed(job.uuid(), job.lease(), List.of(new IterationResult(0, "{}", "", Map.of())));
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
        await().atMost(Duration.ofSeconds(10)).until(() -> fleet.job("alpha", job.uuid().toString()).get("status").asText().equals("canceled"));

        runner.send(new RunnerMessage.Heartbeat(job.uuid(), job.lease()));
        assertThat(answer(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());
    }
}

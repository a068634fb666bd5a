package dev.baton.router;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.SpecView;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.router.policy.FirstCome;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A job canceled on the server while its runner behind the router finishes it, with the cancel at
 * every point of the job's end: before the server reads the runner's last heartbeat (the server
 * then answers that heartbeat with {@code cancel} instead of {@code ack}), between that answer and
 * the close of the heartbeat, after the result went upstream, and before or after the runner's
 * result reaches the router. The router's core is driven event by event, in exactly the order the
 * server would produce, so every interleaving is checked, not the one a machine happens to make.
 *
 * <p>Whatever the order: the router's outbox ends empty, the router holds nothing, the server's
 * acknowledgement of the result is counted once, and the runner hears everything the server said
 * about the job exactly once, its result answered {@code ack}.
 */
class RouterCancelRaceTest {
    @TempDir
    Path dir;

    /** Where, in the server's stream of answers, the cancel is pushed, and when the runner's result reaches the router. */
    record Point(int cancelAt, int resultAt) {
        @Override
        public String toString() {
            return "cancel pushed at " + cancelAt + ", result reaches the router at " + resultAt;
        }
    }

    static List<Point> points() {
        List<Point> points = new ArrayList<>();
        // The server's stream after the runner's heartbeat: [answer to heartbeat, its close, answer to result, its
        // close].
        // The cancel is pushed before any of the first three (once the result is taken the job is over, and
        // there is nothing to cancel); the result reaches the router before any of the server's messages up
        // to its own answer.
        for (int cancelAt = 0; cancelAt <= 2; cancelAt++) {
            for (int resultAt = 0; resultAt <= 3; resultAt++) points.add(new Point(cancelAt, resultAt));
        }
        return points;
    }

    /** What the router sent upstream; the test plays the server. */
    static final class Server implements Upstream {
        final List<RunnerMessage> received = new ArrayList<>();

        @Override
        public void send(RunnerMessage message) {
            received.add(message);
        }
    }

    static final class RunnerLink implements Link {
        final List<ServerMessage> received = new ArrayList<>();

        @Override
        public void send(ServerMessage message) {
            received.add(message);
        }

        @Override
        public void close(int code, String reason) {}
    }

    @ParameterizedTest
    @MethodSource("points")
    void aCancelAtAnyPointOfAJobsEndLeavesNothingBehind(Point point) {
        Server server = new Server();
        Outbox outbox = new Outbox(dir.resolve("outbox"));
        RouterMetrics metrics = new RouterMetrics();
        RouterCore core = new RouterCore(
                RouterSettings.defaults("router"),
                new FirstCome(),
                outbox,
                metrics,
                new RouterProtocolTest.HandClock(),
                server);
        RunnerLink link = new RunnerLink();
        core.upstreamOpened();
        core.runnerConnected(new RunnerEntry("r1", "hash", Set.of("test")), link);
        core.runnerReceived("r1", link, new RunnerMessage.Ready(900, "linux", "x86_64", "test", 1));
        ClaimedJob job = claimed();
        core.upstreamReceived(new ServerMessage.Job(job));
        core.runnerReceived("r1", link, new RunnerMessage.Running(job.uuid(), job.lease()));
        core.upstreamReceived(new ServerMessage.Ack(job.uuid()));
        core.upstreamReceived(new ServerMessage.Ack(null));
        assertThat(link.received.getLast())
                .as("running, answered by the server")
                .isEqualTo(new ServerMessage.Ack(job.uuid()));
        link.received.clear();

        core.runnerReceived("r1", link, new RunnerMessage.Heartbeat(job.uuid(), job.lease()));
        ServerMessage.Cancel cancel = new ServerMessage.Cancel(job.uuid(), job.lease(), "canceled_by_user", 30);
        // A server that had the job canceled before it read the heartbeat answers it with cancel.
        ServerMessage heartbeatAnswer = point.cancelAt() == 0 ? cancel : new ServerMessage.Ack(job.uuid());
        List<Object> events = new ArrayList<>(List.of(
                heartbeatAnswer,
                new ServerMessage.Ack(null),
                new ServerMessage.Ack(job.uuid()),
                new ServerMessage.Ack(null)));
        events.add(point.cancelAt(), cancel);
        // The runner's result reaches the router before the server can answer it (the answer after the heartbeat's
        // close).
        int answerToResult = events.indexOf(new ServerMessage.Ack(null)) + 1;
        RunnerMessage.Completed result = new RunnerMessage.Completed(
                job.uuid(), job.lease(), List.of(new IterationResult(0, "{}", "", Map.of())));
        events.add(Math.min(point.resultAt(), answerToResult), result);

        List<ServerMessage> aboutTheJob = new ArrayList<>();
        for (Object event : events) {
            if (event instanceof RunnerMessage m) {
                core.runnerReceived("r1", link, m);
            } else {
                ServerMessage m = (ServerMessage) event;
                if (!(m instanceof ServerMessage.Ack a && a.job() == null)) aboutTheJob.add(m);
                core.upstreamReceived(m);
            }
        }

        assertThat(server.received).contains(result);
        assertThat(outbox.results()).as("the router's outbox").isEmpty();
        assertThat(core.heldJobs()).as("jobs the router holds").isZero();
        assertThat(core.status().jobs()).isEmpty();
        assertThat(metrics.scrape()).contains("baton_router_results_acknowledged_total 1.0");
        List<ServerMessage> heard = link.received;
        assertThat(heard).as("what the runner heard about the job").containsExactlyInAnyOrderElementsOf(aboutTheJob);
        assertThat(heard.getLast()).isEqualTo(new ServerMessage.Ack(job.uuid()));
    }

    static ClaimedJob claimed() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        SpecView spec = new SpecView(
                SpecUuid.random(), "test", "test", Architecture.X86_64, 1, 256L << 20, 1L << 30, false, t, t, null);
        JobConfig config = new JobConfig(
                null, ProjectUuid.random(), null, null, List.of("true"), Map.of(), JobTimeout.of(60), List.of(), 1);
        return new ClaimedJob(JobUuid.random(), LeaseId.random(), 1, spec, config, "pull-token", 60, t);
    }
}

package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.dispatch.ImageAffinity;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Attempt;
import dev.baton.store.Job;
import dev.baton.store.Spec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19's image affinity over real WebSockets and a real store, once per dialect: a job goes
 * to a waiting runner that holds its image ahead of an older waiter that does not; a cold runner
 * takes it at once when it is the only one waiting; a runner that never holds the image still
 * gets every {@code MAX_PASSES + 1}-th job while warm runners keep taking them; the attempt and
 * the attempt says whether it was warm (the API's view is in RunnerCapabilitiesTest).
 */
abstract class ImageAffinityContractTest {
    private static final Duration SHORT = Duration.ofMillis(200);
    private static final ImageDigest A = ImageDigest.of("sha256:" + "a".repeat(64));
    private static final ImageDigest B = ImageDigest.of("sha256:" + "b".repeat(64));

    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    final List<TestRunner> connections = new ArrayList<>();

    abstract String databaseUrl(Path dataDir);

    private void start(boolean affinity) {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir, c -> c.withImageAffinity(affinity));
        spec = server.spec("bare metal");
    }

    @AfterEach
    void stop() {
        connections.forEach(TestRunner::crash);
        if (server != null) server.close();
    }

    private TestRunner connect(RunnerHandle handle) {
        TestRunner r = server.connect(handle);
        connections.add(r);
        return r;
    }

    private static RunnerMessage.Ready ready(List<ImageDigest> images) {
        return new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1, null, null, null, null, images);
    }

    /**
     * Connects a runner and makes it wait, reporting {@code images}. Messages of one channel are
     * handled in order, so the heartbeat's ack says the ready is in (waiting order is what these
     * tests are about; a pause would not prove it on a busy machine).
     */
    private TestRunner waiting(RunnerHandle handle, List<ImageDigest> images) {
        TestRunner r = connect(handle);
        r.send(ready(images));
        r.send(new RunnerMessage.Heartbeat(null, null));
        r.expect(ServerMessage.Ack.class);
        return r;
    }

    private Attempt lastAttempt(Job job) {
        List<Attempt> attempts = server.store.runs().attempts(job.id());
        return attempts.get(attempts.size() - 1);
    }

    /** Runs the claimed job to completion, as a runner does. */
    private static void finish(TestRunner runner, ClaimedJob job) {
        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        runner.expect(ServerMessage.Ack.class);
        runner.send(new RunnerMessage.Completed(
                job.uuid(), job.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
        runner.expect(ServerMessage.Ack.class);
    }

    @Test
    void aJobGoesToTheRunnerThatHoldsItsImageAheadOfAnOlderColdWaiter() {
        start(true);
        TestRunner cold = waiting(server.runner(spec), List.of(B)); // waits first
        TestRunner warm = waiting(server.runner(spec), List.of(B, A));

        Job job = server.submit(spec, A);
        assertThat(warm.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
        cold.expectSilence(SHORT);
        assertThat(lastAttempt(job).warm()).isTrue();

        // A job of the image the cold one holds goes to it (the warm one is busy anyway).
        Job other = server.submit(spec, B);
        assertThat(cold.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(other.uuid());
        assertThat(lastAttempt(other).warm()).isTrue();
    }

    @Test
    void withAffinityOffTheOlderWaiterTakesItAsBefore() {
        start(false);
        TestRunner cold = waiting(server.runner(spec), List.of(B));
        TestRunner warm = waiting(server.runner(spec), List.of(A));

        Job job = server.submit(spec, A);
        assertThat(cold.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
        warm.expectSilence(SHORT);
        assertThat(lastAttempt(job).warm())
                .as("still recorded: the runner reported its images")
                .isFalse();
    }

    @Test
    void aColdRunnerTakesTheJobAtOnceWhenNoWarmRunnerWaits() {
        start(true);
        RunnerHandle warmHandle = server.runner(spec);
        TestRunner warm = connect(warmHandle);
        warm.send(ready(List.of(A)));
        Job first = server.submit(spec, A);
        assertThat(warm.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(first.uuid()); // now busy

        TestRunner cold = waiting(server.runner(spec), List.of());
        Job second = server.submit(spec, A);
        assertThat(cold.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(second.uuid());
        assertThat(lastAttempt(second).warm()).isFalse();

        // A runner that reports no images at all (an older runner) is served too, and its attempt says "unknown".
        TestRunner old = waiting(server.runner(spec), null);
        Job third = server.submit(spec, A);
        assertThat(old.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(third.uuid());
        assertThat(lastAttempt(third).warm()).isNull();
    }

    @Test
    void aRunnerThatNeverHoldsTheImageIsNotStarvedWhileWarmRunnersKeepTakingJobs() {
        start(true);
        TestRunner cold = waiting(server.runner(spec), List.of());
        TestRunner warm = waiting(server.runner(spec), List.of(A));

        List<String> takers = new ArrayList<>();
        for (int i = 0; i < 2 * (ImageAffinity.MAX_PASSES + 1); i++) {
            Job job = server.submit(spec, A);
            // Exactly one of them gets it; the warm one is always free again before the next job.
            ServerMessage.Job got = null;
            TestRunner taker = null;
            for (int tries = 0; got == null && tries < 500; tries++) { // up to 20 s on a busy machine
                for (TestRunner r : List.of(warm, cold)) {
                    ServerMessage m = r.poll(Duration.ofMillis(20));
                    if (m instanceof ServerMessage.Job j) {
                        got = j;
                        taker = r;
                    }
                }
            }
            assertThat(got).as("job %d was handed out", i).isNotNull();
            assertThat(got.job().uuid()).isEqualTo(job.uuid());
            takers.add(taker == warm ? "warm" : "cold");
            finish(taker, got.job());
            taker.send(ready(taker == warm ? List.of(A) : List.of()));
            // Messages of one channel are handled in order: the ack says its ready is in.
            taker.send(new RunnerMessage.Heartbeat(null, null));
            taker.expect(ServerMessage.Ack.class);
        }
        // MAX_PASSES jobs go warm ahead of the waiting cold runner, then it goes first once: bounded.
        List<String> round = new ArrayList<>();
        for (int i = 0; i < ImageAffinity.MAX_PASSES; i++) round.add("warm");
        round.add("cold");
        List<String> expected = new ArrayList<>(round);
        expected.addAll(round);
        assertThat(takers).isEqualTo(expected);
    }

    @Test
    void aHeartbeatUpdatesTheHeldImages() {
        start(true);
        RunnerHandle handle = server.runner(spec);
        TestRunner cold = waiting(server.runner(spec), List.of());
        TestRunner runner = connect(handle);
        runner.send(ready(List.of()));
        runner.expectSilence(SHORT);
        // Its cache changed (a job it ran meanwhile on another slot): an idle heartbeat says so.
        runner.send(new RunnerMessage.Heartbeat(null, null, List.of(A, B)));
        runner.expect(ServerMessage.Ack.class);

        Job job = server.submit(spec, B);
        assertThat(runner.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
        cold.expectSilence(SHORT);
    }

    @Test
    void tooManyOrRepeatedImagesAreAnInvalidMessage() {
        start(true);
        TestRunner runner = connect(server.runner(spec));
        StringBuilder images = new StringBuilder();
        for (int i = 0; i <= dev.baton.protocol.message.HeldImages.MAX; i++) {
            images.append(i == 0 ? "" : ",")
                    .append('"')
                    .append(String.format("sha256:%064x", i))
                    .append('"');
        }
        runner.sendRaw("{\"event\":\"ready\",\"poll_timeout\":600,\"images\":[" + images + "]}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        runner.sendRaw("{\"event\":\"heartbeat\",\"images\":[\"" + A.value() + "\",\"" + A.value() + "\"]}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        runner.sendRaw("{\"event\":\"heartbeat\",\"images\":[\"latest\"]}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
    }
}

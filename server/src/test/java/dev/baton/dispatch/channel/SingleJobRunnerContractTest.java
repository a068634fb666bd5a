package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Job;
import dev.baton.store.Runner;
import dev.baton.store.Spec;
import dev.baton.store.StoreException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
 * Single-job runners (issue 43) over real WebSockets and a real store, once per dialect: one job
 * and no other, the key refused once its attempt ended ({@code runner_spent}), and binding: a
 * bound runner takes only its job, and no other runner takes that job while the bound runner is
 * live and unspent (docs/runner.md, "Single-job runners").
 */
abstract class SingleJobRunnerContractTest {
    private static final Duration SHORT = Duration.ofMillis(300);

    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    final List<TestRunner> connections = new ArrayList<>();
    private int names;

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("bare metal");
    }

    @AfterEach
    void stop() {
        connections.forEach(TestRunner::crash);
        server.close();
    }

    private TestRunner connect(RunnerHandle handle) {
        TestRunner r = server.connect(handle);
        connections.add(r);
        return r;
    }

    private RunnerHandle singleJob(Job boundTo) {
        RunnerKey key = RunnerKey.generate();
        String name = "single " + ++names;
        Runner runner = server.store
                .runners()
                .createEphemeralRunner(
                        name,
                        Slug.fromName(name),
                        key.hash(),
                        boundTo == null ? null : boundTo.id(),
                        server.clock.instant());
        server.store.specs().addRunnerSpec(runner.id(), spec.id());
        return new RunnerHandle(runner, key.reveal());
    }

    private static RunnerMessage.Ready ready() {
        return new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1, null, null, null, Map.of());
    }

    private static void complete(TestRunner runner, ClaimedJob job) {
        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        runner.expect(ServerMessage.Ack.class);
        runner.send(new RunnerMessage.Completed(
                job.uuid(), job.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
        runner.expect(ServerMessage.Ack.class);
    }

    /** The raw upgrade with the runner's own key: status line and JSON body. */
    private String upgrade(RunnerHandle handle) throws Exception {
        var uri = server.channelUri(handle.runner());
        try (var socket = new Socket("127.0.0.1", uri.getPort())) {
            String request = "GET " + uri.getPath() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer " + handle.key()
                    + "\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.setSoTimeout(10_000);
            byte[] buffer = new byte[4096];
            StringBuilder response = new StringBuilder();
            for (int n;
                    !response.toString().contains("}")
                            && (n = socket.getInputStream().read(buffer)) > 0; ) {
                response.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            }
            return response.toString();
        }
    }

    @Test
    void aSingleJobRunnerTakesOneJobAndItsKeyIsRefusedOnceThatJobEnded() throws Exception {
        Job first = server.submit(spec);
        Job second = server.submit(spec);
        RunnerHandle single = singleJob(null);
        TestRunner r = connect(single);
        r.send(ready());
        ClaimedJob took = r.expect(ServerMessage.Job.class).job();
        assertThat(took.uuid()).isEqualTo(first.uuid());
        assertThat(server.store.runners().isSpent(single.runner().id())).isFalse();
        complete(r, took);
        assertThat(server.store.runners().isSpent(single.runner().id())).isTrue();

        // A misbehaving agent asking again on the open channel gets nothing.
        r.send(ready());
        r.expectSilence(SHORT);
        assertThat(server.job(second).status()).isEqualTo(JobStatus.PENDING);

        // Its key is refused with its own code; a plain runner takes the other job.
        assertThatThrownBy(() -> connect(single)).isInstanceOf(CompletionException.class);
        assertThat(upgrade(single))
                .startsWith("HTTP/1.1 401")
                .contains("\"code\":\"runner_spent\"")
                .contains(single.runner().slug().value())
                .doesNotContain(single.key());
        TestRunner plain = connect(server.runner(spec));
        plain.send(ready());
        assertThat(plain.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(second.uuid());
    }

    @Test
    void aRunnerThatIsNotSingleJobKeepsItsKeyAfterAJob() throws Exception {
        RunnerHandle plain = server.runner(spec);
        Job job = server.submit(spec);
        TestRunner r = connect(plain);
        r.send(ready());
        complete(r, r.expect(ServerMessage.Job.class).job());
        assertThat(server.store.runners().isSpent(plain.runner().id())).isFalse();
        assertThat(server.job(job).status()).isIn(JobStatus.COMPLETED, JobStatus.PROCESSED);
        assertThat(upgrade(plain)).startsWith("HTTP/1.1 101");
    }

    @Test
    void aBoundRunnerTakesOnlyItsJobEvenWhenAnOlderOneWaits() {
        Job older = server.submit(spec);
        Job mine = server.submit(spec);
        RunnerHandle bound = singleJob(mine);
        TestRunner r = connect(bound);
        r.send(ready());
        assertThat(r.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(mine.uuid());
        assertThat(server.job(older).status()).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void aBoundRunnerWhoseJobWasTakenOrEndedTakesNothing() {
        Job mine = server.submit(spec);
        RunnerHandle bound = singleJob(mine);
        server.cancel(mine);
        server.submit(spec);
        TestRunner r = connect(bound);
        r.send(ready());
        r.expectSilence(SHORT);
    }

    @Test
    void noOtherRunnerTakesABoundJobWhileItsRunnerIsLiveThenAnyMayAfterItIsArchived() {
        Job reserved = server.submit(spec);
        RunnerHandle bound = singleJob(reserved);
        TestRunner plain = connect(server.runner(spec));
        plain.send(ready());
        plain.expectSilence(SHORT);
        Job other = server.submit(spec);
        assertThat(plain.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(other.uuid());
        assertThat(server.job(reserved).status()).isEqualTo(JobStatus.PENDING);

        // The pool stops the machine that never came (it archives its runner): the reservation lapses.
        server.store.runners().updateRunner(bound.runner().id(), null, null, true, server.clock.instant());
        TestRunner another = connect(server.runner(spec));
        another.send(ready());
        assertThat(another.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(reserved.uuid());
    }

    @Test
    void aBoundJobItsRunnerDeclinedGoesToAnyRunnerAndTheRunnerIsSpent() {
        Job reserved = server.submit(spec);
        RunnerHandle bound = singleJob(reserved);
        TestRunner r = connect(bound);
        r.send(ready());
        ClaimedJob took = r.expect(ServerMessage.Job.class).job();
        r.send(new RunnerMessage.Declined(took.uuid(), took.lease(), "shutting down"));
        r.expect(ServerMessage.Ack.class);
        assertThat(server.store.runners().isSpent(bound.runner().id())).isTrue();

        TestRunner plain = connect(server.runner(spec));
        plain.send(ready());
        assertThat(plain.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(reserved.uuid());
    }

    @Test
    void aRunnerIsBoundOnlyToAJobThatWaitsAndOnlyOneRunnerToAJob() {
        Job job = server.submit(spec);
        singleJob(job);
        assertThatThrownBy(() -> singleJob(job))
                .isInstanceOfSatisfying(
                        StoreException.class, e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.CONFLICT));
        Job canceled = server.cancel(server.submit(spec));
        assertThatThrownBy(() -> singleJob(canceled)).isInstanceOf(StoreException.class);
    }
}

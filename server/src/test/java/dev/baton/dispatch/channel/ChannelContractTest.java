package dev.baton.dispatch.channel;

import static dev.baton.server.testing.ChannelFixture.ACCEPTANCE_TIMEOUT;
import static dev.baton.server.testing.ChannelFixture.CANCEL_DEADLINE;
import static dev.baton.server.testing.ChannelFixture.GRACE;
import static dev.baton.server.testing.ChannelFixture.HEARTBEAT_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.dispatch.RunnerSession;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.message.FailureCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.AttemptEnd;
import dev.baton.store.FailureKind;
import dev.baton.store.Job;
import dev.baton.store.NotRetried;
import dev.baton.store.Organization;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import dev.baton.store.TestClaims;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner channel and dispatch, end to end over real WebSockets against a real store, with a
 * test clock for every timeout. Runs once per database dialect (see the subclasses), and once with
 * every runner behind a router (the router module's {@code RouterChannelTest}; the server's test
 * classes are its test-jar).
 */
abstract class ChannelContractTest {
    private static final Duration SHORT = Duration.ofMillis(300);

    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    RunnerHandle alice;
    List<TestRunner> connections = new ArrayList<>();

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("x86 small");
        alice = server.runner(spec);
    }

    @AfterEach
    void stop() {
        connections.forEach(TestRunner::crash);
        server.close();
    }

    TestRunner connect(RunnerHandle handle) {
        TestRunner r = open(handle);
        connections.add(r);
        return r;
    }

    /**
     * How a runner of {@code handle} reaches the server: directly here; through a router in front of
     * the same server in the router module's {@code RouterChannelTest}, which plays every case again
     * (a runner behind a router must get what a runner gets from the server).
     */
    TestRunner open(RunnerHandle handle) {
        return server.connect(handle);
    }

    /**
     * Moves the test clock and fires whatever became due. Through a router, in steps the router
     * keeps up with (it speaks at each new time before the server's timers run).
     */
    void advance(Duration by) {
        server.advance(by);
    }

    /** Whether the server has seen every runner connection close (through a router: the router has). */
    boolean runnerConnectionsGone() {
        return server.channel().sessions().size() == 0;
    }

    static RunnerMessage.Ready ready() {
        return new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1);
    }

    ClaimedJob claim(TestRunner runner) {
        runner.send(ready());
        return runner.expect(ServerMessage.Job.class).job();
    }

    /** Sends ready and waits until the server has taken it (messages are handled in order; the bare heartbeat is acked). */
    void waitFor(TestRunner runner, int pollTimeout) {
        runner.send(new RunnerMessage.Ready(pollTimeout, "linux", "x86_64", "test", 1));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);
    }

    /** A job heartbeat, acknowledged. */
    static void heartbeat(TestRunner runner, ClaimedJob job) {
        runner.send(new RunnerMessage.Heartbeat(job.uuid(), job.lease()));
        runner.expect(ServerMessage.Ack.class);
    }

    /** A completed with one empty-JSON iteration, acknowledged. */
    static void complete(TestRunner runner, ClaimedJob job) {
        runner.send(new RunnerMessage.Completed(job.uuid(), job.lease(), List.of(iteration(0, "{}"))));
        runner.expect(ServerMessage.Ack.class);
    }

    static IterationResult iteration(int exit, String stdout) {
        return new IterationResult(exit, stdout, "", Map.of());
    }

    void start(TestRunner runner, ClaimedJob job) {
        runner.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        assertThat(runner.expect(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
    }

    JobStatus status(Job job) {
        return server.job(job).status();
    }

    void awaitStatus(Job job, JobStatus expected) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(status(job)).isEqualTo(expected));
    }

    // ---- lifecycle -------------------------------------------------------------------------------

    @Test
    void lifecycleCompleted() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        assertThat(claimed.uuid()).isEqualTo(job.uuid());
        assertThat(claimed.spec().uuid()).isEqualTo(spec.uuid());
        assertThat(claimed.config().digest()).isEqualTo(job.config().digest());
        assertThat(claimed.ociToken()).isNotBlank();
        assertThat(claimed.attempt()).isEqualTo(1);
        assertThat(status(job)).isEqualTo(JobStatus.CLAIMED);

        start(runner, claimed);
        assertThat(status(job)).isEqualTo(JobStatus.RUNNING);
        assertThat(server.job(job).started()).isNotNull();
        heartbeat(runner, claimed);
        runner.send(new RunnerMessage.Completed(
                claimed.uuid(), claimed.lease(), List.of(iteration(0, "{\"bench\":{\"latency\":{\"value\":1.5}}}"))));
        assertThat(runner.expect(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());

        awaitStatus(job, JobStatus.PROCESSED);
        JobOutput output = server.outputs
                .get(server.project.uuid(), job.uuid(), server.job(job).attempt())
                .orElseThrow();
        assertThat(output.results()).hasSize(1);
        assertThat(server.store.runs().findReport(job.reportId()).orElseThrow().results())
                .contains("latency");
    }

    @Test
    void lifecycleFailed() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        runner.send(new RunnerMessage.Failed(
                claimed.uuid(), claimed.lease(), List.of(iteration(3, "boom")), "exit code 3"));
        runner.expect(ServerMessage.Ack.class);
        assertThat(status(job)).isEqualTo(JobStatus.FAILED);
        assertThat(server.outputs
                        .get(server.project.uuid(), job.uuid(), server.job(job).attempt())
                        .orElseThrow()
                        .error())
                .isEqualTo("exit code 3");
    }

    @Test
    void manyJobsOnOneConnection() {
        TestRunner runner = connect(alice);
        for (int i = 0; i < 5; i++) {
            Job job = server.submit(spec);
            ClaimedJob claimed = claim(runner);
            assertThat(claimed.uuid()).isEqualTo(job.uuid());
            start(runner, claimed);
            complete(runner, claimed);
            awaitStatus(job, JobStatus.PROCESSED);
        }
        assertThat(runner.isClosed()).isFalse();
    }

    @Test
    void completedWithSeveralIterationsAndOutputFiles() {
        Job job = server.submit(spec, server.organization, "192.0.2.1", 600, List.of("out/result.json"));
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        assertThat(claimed.config().filePaths()).containsExactly("out/result.json");
        start(runner, claimed);
        var results = List.of(
                new IterationResult(0, "{\"a\":{\"t\":{\"value\":1}}}", "warm", Map.of("out/result.json", "{\"n\":1}")),
                new IterationResult(0, "{\"a\":{\"t\":{\"value\":2}}}", "", Map.of("out/result.json", "{\"n\":2}")));
        runner.send(new RunnerMessage.Completed(claimed.uuid(), claimed.lease(), results));
        runner.expect(ServerMessage.Ack.class);
        awaitStatus(job, JobStatus.PROCESSED);
        JobOutput output = server.outputs
                .get(server.project.uuid(), job.uuid(), server.job(job).attempt())
                .orElseThrow();
        assertThat(output.results()).hasSize(2);
        assertThat(output.results().get(1).output()).containsEntry("out/result.json", "{\"n\":2}");
        assertThat(server.store.runs().findReport(job.reportId()).orElseThrow().results())
                .contains("\"value\":1")
                .contains("\"value\":2");
    }

    @Test
    void completedBeforeRunning() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        complete(runner, claimed);
        awaitStatus(job, JobStatus.PROCESSED);
    }

    @Test
    void failedFromClaimed() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        runner.send(new RunnerMessage.Failed(claimed.uuid(), claimed.lease(), List.of(), "image pull failed"));
        runner.expect(ServerMessage.Ack.class);
        assertThat(status(job)).isEqualTo(JobStatus.FAILED);
        assertThat(server.job(job).error()).contains("image pull failed");
    }

    // ---- read timeout ----------------------------------------------------------------------------

    @Test
    void heartbeatTimeoutFailsARunningJob() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        advance(HEARTBEAT_TIMEOUT.plusSeconds(2));
        awaitStatus(job, JobStatus.FAILED);
        assertThat(server.job(job).error()).contains("lost contact");
        assertThat(runner.awaitClose()).isEqualTo(RunnerSession.CLOSE_HEARTBEAT_TIMEOUT);
    }

    @Test
    void pingDoesNotResetTheReadTimer() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        advance(HEARTBEAT_TIMEOUT.minusSeconds(10));
        runner.sendPing();
        advance(Duration.ofSeconds(12));
        awaitStatus(job, JobStatus.FAILED);
    }

    @Test
    void invalidJsonAndBinaryDoNotResetTheReadTimer() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        advance(HEARTBEAT_TIMEOUT.minusSeconds(10));
        runner.sendRaw("{not json");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        runner.sendRaw("{\"event\":\"no_such_event\"}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        runner.sendBinary(new byte[] {1, 2, 3});
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("binary_not_supported");
        advance(Duration.ofSeconds(12));
        awaitStatus(job, JobStatus.FAILED);
    }

    // ---- exact input (issue 12) --------------------------------------------------------------------

    /** A scalar of the wrong type is invalid_message and changes nothing, as on the REST API. */
    @Test
    void wrongScalarTypesAreInvalidAndChangeNothing() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        runner.sendRaw("{\"event\":\"ready\",\"poll_timeout\":\"1\"}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        runner.sendRaw("{\"event\":\"ready\",\"poll_timeout\":1.5}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        assertThat(status(job)).isEqualTo(JobStatus.PENDING);

        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        String lease = claimed.lease().value();
        runner.sendRaw(
                "{\"event\":\"failed\",\"job\":\"" + claimed.uuid() + "\",\"lease\":\"" + lease + "\",\"error\":42}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        runner.sendRaw("{\"event\":\"completed\",\"job\":\"" + claimed.uuid() + "\",\"lease\":\"" + lease
                + "\",\"results\":[{\"exit_code\":\"0\",\"stdout\":\"{}\"}]}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        assertThat(status(job)).isEqualTo(JobStatus.RUNNING);
        assertThat(server.job(job).error()).isNull();
    }

    /** Invalid UTF-8 in a text frame (an overlong '/') fails the WebSocket with 1007; nothing changes. */
    @Test
    void overlongUtf8FailsTheConnectionWith1007() throws Exception {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        runner.crash();
        var uri = server.channelUri(alice.runner());
        try (var socket = new java.net.Socket("127.0.0.1", uri.getPort())) {
            socket.setSoTimeout(10_000);
            var out = socket.getOutputStream();
            out.write(("GET " + uri.getPath()
                            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                            + "Authorization: Bearer " + alice.key() + "\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            var in = new java.io.DataInputStream(socket.getInputStream());
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) head.append((char) in.readUnsignedByte());
            assertThat(head.toString()).startsWith("HTTP/1.1 101");
            byte[] payload = ("{\"event\":\"failed\",\"job\":\"" + claimed.uuid() + "\",\"lease\":\""
                            + claimed.lease().value() + "\",\"error\":\"x\u0000\"}")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int at = new String(payload, java.nio.charset.StandardCharsets.UTF_8).indexOf('\u0000');
            byte[] bad = new byte[payload.length + 1];
            System.arraycopy(payload, 0, bad, 0, at);
            bad[at] = (byte) 0xC0; // C0 AF: an overlong encoding of '/'
            bad[at + 1] = (byte) 0xAF;
            System.arraycopy(payload, at + 1, bad, at + 2, payload.length - at - 1);
            byte[] mask = {1, 2, 3, 4};
            var frame = new java.io.ByteArrayOutputStream();
            frame.write(0x81);
            frame.write(0x80 | 126);
            frame.write(bad.length >> 8);
            frame.write(bad.length & 0xff);
            frame.write(mask);
            for (int i = 0; i < bad.length; i++) frame.write(bad[i] ^ mask[i % 4]);
            out.write(frame.toByteArray());
            out.flush();
            // Text frames the server sent before it read ours (the welcome) are skipped.
            int opcode;
            int length;
            while (true) {
                opcode = in.readUnsignedByte() & 0x0f;
                length = in.readUnsignedByte() & 0x7f;
                if (opcode != 0x1) break;
                long payloadLength = length == 126 ? in.readUnsignedShort() : length == 127 ? in.readLong() : length;
                in.skipNBytes(payloadLength);
            }
            assertThat(opcode).as("a close frame").isEqualTo(0x8);
            assertThat(length).isGreaterThanOrEqualTo(2);
            assertThat(in.readUnsignedShort()).isEqualTo(1007);
        }
        assertThat(status(job)).isEqualTo(JobStatus.RUNNING);
        assertThat(server.job(job).error()).isNull();
    }

    /** A lone surrogate (escaped or raw) would be stored as '?': refused, nothing changes. */
    @Test
    void loneSurrogatesAreInvalidAndChangeNothing() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        String prefix = "{\"event\":\"failed\",\"job\":\"" + claimed.uuid() + "\",\"lease\":\""
                + claimed.lease().value() + "\",\"error\":";
        runner.sendRaw(prefix + "\"bad \\ud800 text\"}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        runner.sendRaw(prefix + "\"bad \\udc00\"}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        assertThat(status(job)).isEqualTo(JobStatus.RUNNING);
        runner.sendRaw(prefix + "\"fine \\ud83d\\ude00 \\\\ud800\"}");
        runner.expect(ServerMessage.Ack.class);
        assertThat(server.job(job).error()).contains("fine \ud83d\ude00 \\ud800");
    }

    @Test
    void noFalseTimeoutWhileHeartbeatsFlow() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        for (int i = 0; i < 10; i++) {
            advance(HEARTBEAT_TIMEOUT.dividedBy(2));
            heartbeat(runner, claimed);
        }
        assertThat(status(job)).isEqualTo(JobStatus.RUNNING);
        assertThat(runner.isClosed()).isFalse();
    }

    @Test
    void jobExceedingTimeoutPlusGraceIsCanceledWithCancel() {
        Job job = server.submit(spec, server.organization, "192.0.2.1", 60, List.of());
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        // Heartbeats keep the channel alive; only the hard timeout may stop this job.
        for (int elapsed = 0; elapsed <= 60 + GRACE.toSeconds(); elapsed += 30) {
            advance(Duration.ofSeconds(30));
            runner.send(new RunnerMessage.Heartbeat(claimed.uuid(), claimed.lease()));
            ServerMessage reply = runner.next();
            if (reply instanceof ServerMessage.Cancel cancel) {
                assertThat(cancel.job()).isEqualTo(job.uuid());
                break;
            }
        }
        assertThat(status(job)).isEqualTo(JobStatus.CANCELED);
        runner.send(new RunnerMessage.Canceled(claimed.uuid(), claimed.lease(), List.of()));
        // The deadline pushed one cancel and the heartbeat was answered with another; then the ack.
        ServerMessage m = runner.next();
        while (m instanceof ServerMessage.Cancel) m = runner.next();
        assertThat(m).isInstanceOf(ServerMessage.Ack.class);
    }

    // ---- cancel ----------------------------------------------------------------------------------

    @Test
    void cancelWhileRunningIsPushedAtOnce() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.cancel(job);
        ServerMessage.Cancel cancel = runner.expect(ServerMessage.Cancel.class);
        assertThat(cancel.job()).isEqualTo(job.uuid());
        assertThat(cancel.deadlineSeconds()).isEqualTo((int) CANCEL_DEADLINE.toSeconds());
        runner.send(new RunnerMessage.Canceled(claimed.uuid(), claimed.lease(), List.of(iteration(137, "partial"))));
        runner.expect(ServerMessage.Ack.class);
        assertThat(status(job)).isEqualTo(JobStatus.CANCELED);
    }

    @Test
    void cancelWhileClaimed() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        server.cancel(job);
        runner.expect(ServerMessage.Cancel.class);
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Cancel.class);
        assertThat(status(job)).isEqualTo(JobStatus.CANCELED);
    }

    @Test
    void pendingJobCanceledIsNeverHandedOut() {
        Job job = server.submit(spec);
        server.cancel(job);
        assertThat(status(job)).isEqualTo(JobStatus.CANCELED);
        TestRunner runner = connect(alice);
        waitFor(runner, 1);
        advance(Duration.ofSeconds(2));
        runner.expect(ServerMessage.NoJob.class);
    }

    @Test
    void runnerSendsCanceledOnItsOwn() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        runner.send(new RunnerMessage.Canceled(claimed.uuid(), claimed.lease(), List.of()));
        runner.expect(ServerMessage.Ack.class);
        assertThat(status(job)).isEqualTo(JobStatus.CANCELED);
    }

    @Test
    void cancelDeadlinePassesWithoutAnAnswer() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.cancel(job);
        runner.expect(ServerMessage.Cancel.class);
        advance(CANCEL_DEADLINE.plusSeconds(1));
        ServerMessage.Stale stale = runner.expect(ServerMessage.Stale.class);
        assertThat(stale.reason()).isEqualTo("cancel_deadline_passed");
        assertThat(status(job)).isEqualTo(JobStatus.CANCELED);
        runner.send(new RunnerMessage.Heartbeat(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Stale.class);
    }

    /**
     * The server finalized the job at the cancel deadline: a {@code canceled} that comes after it
     * (the runner ignored the cancel) stores no output on the attempt (issue 40); one in time does.
     */
    @Test
    void aCanceledAfterTheCancelDeadlineStoresNoOutput() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.cancel(job);
        runner.expect(ServerMessage.Cancel.class);
        server.advance(CANCEL_DEADLINE.plusSeconds(1));
        runner.expect(ServerMessage.Stale.class);
        runner.send(
                new RunnerMessage.Canceled(claimed.uuid(), claimed.lease(), List.of(iteration(143, "LATE-CANCEL"))));
        runner.next(); // answered (the runner drops it from its outbox); what matters is what was stored
        assertThat(status(job)).isEqualTo(JobStatus.CANCELED);
        assertThat(server.outputs.get(
                        server.store
                                .organizations()
                                .projectUuid(job.projectId())
                                .orElseThrow(),
                        job.uuid(),
                        1))
                .as("a word after the server finalized the job stores nothing")
                .isEmpty();
    }

    @Test
    void aCanceledBeforeTheCancelDeadlineKeepsItsOutput() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.cancel(job);
        runner.expect(ServerMessage.Cancel.class);
        server.advance(Duration.ofSeconds(5));
        runner.send(new RunnerMessage.Canceled(claimed.uuid(), claimed.lease(), List.of(iteration(143, "IN-TIME"))));
        ServerMessage m = runner.next();
        while (m instanceof ServerMessage.Cancel) m = runner.next();
        assertThat(m).isInstanceOf(ServerMessage.Ack.class);
        assertThat(server.outputs.get(
                        server.store
                                .organizations()
                                .projectUuid(job.projectId())
                                .orElseThrow(),
                        job.uuid(),
                        1))
                .hasValueSatisfying(
                        o -> assertThat(o.results().getFirst().stdout()).isEqualTo("IN-TIME"));
    }

    @Test
    void completedAfterAConcurrentCancelKeepsTheCancel() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.cancel(job);
        runner.send(new RunnerMessage.Completed(claimed.uuid(), claimed.lease(), List.of(iteration(0, "{}"))));
        List<ServerMessage> replies = List.of(runner.next(), runner.next());
        assertThat(replies)
                .hasAtLeastOneElementOfType(ServerMessage.Cancel.class)
                .hasAtLeastOneElementOfType(ServerMessage.Ack.class);
        assertThat(status(job)).isEqualTo(JobStatus.CANCELED);
    }

    // ---- idempotency and fencing -------------------------------------------------------------------

    @Test
    void completedOverridesAHeartbeatTimeoutFailure() {
        Job job = server.submit(spec);
        TestRunner first = connect(alice);
        ClaimedJob claimed = claim(first);
        start(first, claimed);
        advance(HEARTBEAT_TIMEOUT.plusSeconds(2));
        assertThat(status(job)).isEqualTo(JobStatus.FAILED);
        first.awaitClose();

        TestRunner again = connect(alice);
        complete(again, claimed);
        awaitStatus(job, JobStatus.PROCESSED);
    }

    @Test
    void duplicateCompletedAndFailedAreIdempotent() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        var completed = new RunnerMessage.Completed(claimed.uuid(), claimed.lease(), List.of(iteration(0, "{}")));
        runner.send(completed);
        runner.expect(ServerMessage.Ack.class);
        runner.send(completed);
        runner.expect(ServerMessage.Ack.class);
        runner.send(new RunnerMessage.Failed(claimed.uuid(), claimed.lease(), List.of(), "late failure"));
        runner.expect(ServerMessage.Ack.class);
        awaitStatus(job, JobStatus.PROCESSED);
        assertThat(server.store.runs().attempts(job.id())).hasSize(1);

        Job second = server.submit(spec);
        ClaimedJob c2 = claim(runner);
        start(runner, c2);
        var failed = new RunnerMessage.Failed(c2.uuid(), c2.lease(), List.of(), "boom");
        runner.send(failed);
        runner.expect(ServerMessage.Ack.class);
        runner.send(failed);
        runner.expect(ServerMessage.Ack.class);
        assertThat(status(second)).isEqualTo(JobStatus.FAILED);
    }

    @Test
    void runningTwiceOnlyRefreshesLiveness() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        var started = server.job(job).started();
        advance(Duration.ofSeconds(5));
        start(runner, claimed);
        assertThat(server.job(job).started()).isEqualTo(started);
        assertThat(status(job)).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void resendOfCompletedWhileIdleAfterReconnect() {
        Job job = server.submit(spec);
        TestRunner first = connect(alice);
        ClaimedJob claimed = claim(first);
        start(first, claimed);
        first.crash();
        TestRunner again = connect(alice);
        complete(again, claimed);
        awaitStatus(job, JobStatus.PROCESSED);
        complete(again, claimed);
        again.send(ready());
        again.expectSilence(SHORT); // idle and waiting: nothing to hand out
    }

    @Test
    void resendForAJobOfAnotherRunnerIsRefused() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        TestRunner bob = connect(server.runner(spec));
        // Even with the right lease (as if stolen), another runner's connection is refused.
        bob.send(new RunnerMessage.Completed(claimed.uuid(), claimed.lease(), List.of(iteration(0, "{}"))));
        assertThat(bob.expect(ServerMessage.Error.class).code()).isEqualTo("not_your_job");
        // A lease it never held is stale, like any lease that is not the current one.
        bob.send(new RunnerMessage.Completed(claimed.uuid(), LeaseId.random(), List.of(iteration(0, "{}"))));
        assertThat(bob.expect(ServerMessage.Stale.class).reason()).isEqualTo("lease is not valid for this job");
        assertThat(status(job)).isEqualTo(JobStatus.RUNNING);
        assertThat(server.outputs.get(
                        server.project.uuid(), job.uuid(), server.job(job).attempt()))
                .as("nothing stored")
                .isEmpty();
        heartbeat(runner, claimed); // the rightful runner is unaffected
    }

    @Test
    void staleLeaseIsRefusedWithStale() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob first = claim(runner);
        runner.send(new RunnerMessage.Declined(first.uuid(), first.lease(), "disk full"));
        runner.expect(ServerMessage.Ack.class);
        // The job is pending again under no lease; the old lease must change nothing.
        runner.send(new RunnerMessage.Running(first.uuid(), first.lease()));
        assertThat(runner.expect(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());
        runner.send(new RunnerMessage.Completed(first.uuid(), first.lease(), List.of(iteration(0, "{}"))));
        runner.expect(ServerMessage.Stale.class);
        assertThat(status(job)).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void aWrongLeaseOrAnUnknownJobIsStaleAndChangesNothing() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        runner.send(new RunnerMessage.Running(claimed.uuid(), LeaseId.random()));
        assertThat(runner.expect(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());
        runner.send(new RunnerMessage.Failed(claimed.uuid(), LeaseId.random(), List.of(), "x"));
        runner.expect(ServerMessage.Stale.class);
        runner.send(new RunnerMessage.Running(dev.baton.protocol.id.JobUuid.random(), claimed.lease()));
        assertThat(runner.expect(ServerMessage.Stale.class).reason()).isEqualTo("no such job");
        assertThat(status(job)).isEqualTo(JobStatus.CLAIMED);
        start(runner, claimed);
    }

    @Test
    void messageOverTheSizeLimitIsRejectedAndChangesNothing() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        String huge = "x".repeat((int) ChannelFixture.MAX_MESSAGE_BYTES + 10);
        runner.send(new RunnerMessage.Completed(claimed.uuid(), claimed.lease(), List.of(iteration(0, huge))));
        assertThat(runner.awaitClose()).isEqualTo(1009);
        assertThat(status(job)).isEqualTo(JobStatus.RUNNING);
        assertThat(server.outputs.get(
                        server.project.uuid(), job.uuid(), server.job(job).attempt()))
                .isEmpty();
    }

    // ---- authentication and connections ----------------------------------------------------------

    @Test
    void keyRotationClosesTheOldKeysAccess() {
        TestRunner before = connect(alice);
        before.send(new RunnerMessage.Heartbeat(null, null));
        before.expect(ServerMessage.Ack.class);
        RunnerKey rotated = RunnerKey.generate();
        server.store.runners().rotateRunnerKey(alice.runner().id(), rotated.hash(), server.clock.instant());
        assertThatThrownBy(() -> connect(alice)).isInstanceOf(CompletionException.class);
        TestRunner withNewKey = connect(new RunnerHandle(alice.runner(), rotated.reveal()));
        withNewKey.send(new RunnerMessage.Heartbeat(null, null));
        withNewKey.expect(ServerMessage.Ack.class);
    }

    @Test
    void archivedRunnerAndMalformedKeysCannotConnect() {
        assertThatThrownBy(() -> connect(new RunnerHandle(alice.runner(), "baton_runner_nothex")))
                .isInstanceOf(CompletionException.class);
        assertThatThrownBy(() -> connect(
                        new RunnerHandle(alice.runner(), RunnerKey.generate().reveal())))
                .isInstanceOf(CompletionException.class);
        server.store.runners().updateRunner(alice.runner().id(), null, null, true, server.clock.instant());
        assertThatThrownBy(() -> connect(alice)).isInstanceOf(CompletionException.class);
    }

    @Test
    void aRefusedUpgradeAnswers401WithTheJsonErrorShape() throws Exception {
        String wrongKey = RunnerKey.generate().reveal();
        try (var socket = new java.net.Socket(
                "127.0.0.1", server.channelUri(alice.runner()).getPort())) {
            String request = "GET " + server.channelUri(alice.runner()).getPath() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer " + wrongKey + "\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            socket.setSoTimeout(10_000);
            byte[] buffer = new byte[4096];
            StringBuilder response = new StringBuilder();
            for (int n;
                    !response.toString().contains("}")
                            && (n = socket.getInputStream().read(buffer)) > 0; ) {
                response.append(new String(buffer, 0, n, java.nio.charset.StandardCharsets.UTF_8));
            }
            String slug = alice.runner().slug().value();
            assertThat(response.toString())
                    .startsWith("HTTP/1.1 401")
                    .contains("application/json")
                    .contains("\"code\":\"unauthorized\"")
                    .contains("runner '" + slug + "'")
                    .contains("baton runners rotate-key " + slug)
                    .doesNotContain(wrongKey);
        }
    }

    @Test
    void everyConnectionOpensWithAWelcomeNamingTheRunnerAndTheSpecsItServes() {
        Spec other = server.spec("arm big");
        server.store.specs().addRunnerSpec(alice.runner().id(), other.id());
        ServerMessage.Welcome welcome = connect(alice).welcome();
        assertThat(welcome.runner()).isEqualTo(alice.runner().slug().value());
        assertThat(welcome.name()).isEqualTo(alice.runner().name());
        assertThat(welcome.specs())
                .containsExactlyInAnyOrder(spec.slug().value(), other.slug().value());
        // the runner cuts its results to this before sending them (issue 40)
        assertThat(welcome.maxMessageBytes()).isEqualTo(ChannelFixture.MAX_MESSAGE_BYTES);
        // an idle runner heartbeats at a third of this instead of every second (issue 45, decision 0051)
        assertThat(welcome.heartbeatTimeoutSeconds()).isEqualTo(ChannelFixture.HEARTBEAT_TIMEOUT.toSeconds());
    }

    @Test
    void aSecondConnectionReplacesTheFirst() {
        Job job = server.submit(spec);
        TestRunner first = connect(alice);
        ClaimedJob claimed = claim(first);
        start(first, claimed);
        TestRunner second = connect(alice);
        assertThat(first.awaitClose()).isEqualTo(RunnerSession.CLOSE_REPLACED);
        heartbeat(second, claimed);
        complete(second, claimed);
        awaitStatus(job, JobStatus.PROCESSED);
    }

    @Test
    void serverShutdownMidJobKeepsTheJob() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.stopServer();
        assertThat(status(job)).isEqualTo(JobStatus.RUNNING);
        server.startServer();
        TestRunner again = connect(alice);
        heartbeat(again, claimed);
        advance(HEARTBEAT_TIMEOUT.minusSeconds(1));
        complete(again, claimed);
        awaitStatus(job, JobStatus.PROCESSED);
    }

    @Test
    void reconnectWithinTheTimeoutKeepsTheJob() {
        Job job = server.submit(spec);
        TestRunner first = connect(alice);
        ClaimedJob claimed = claim(first);
        start(first, claimed);
        first.crash();
        await().atMost(Duration.ofSeconds(5)).until(this::runnerConnectionsGone);
        advance(HEARTBEAT_TIMEOUT.dividedBy(2));
        TestRunner again = connect(alice);
        heartbeat(again, claimed);
        advance(HEARTBEAT_TIMEOUT.dividedBy(2).plusSeconds(1));
        assertThat(status(job)).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void disconnectOfARunningJobWithoutReconnectFailsIt() {
        Job job = server.submit(spec);
        TestRunner first = connect(alice);
        ClaimedJob claimed = claim(first);
        start(first, claimed);
        first.crash();
        await().atMost(Duration.ofSeconds(5)).until(this::runnerConnectionsGone);
        advance(HEARTBEAT_TIMEOUT.plusSeconds(1));
        awaitStatus(job, JobStatus.FAILED);
    }

    // ---- dispatch --------------------------------------------------------------------------------

    @Test
    void anIdleRunnerIsHandedASubmittedJobAtOnce() {
        TestRunner runner = connect(alice);
        runner.send(ready());
        runner.expectSilence(SHORT);
        Job job = server.submit(spec);
        assertThat(runner.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
    }

    /** Issue 13: a pump that serves several waiting runners claims for all of them in one transaction. */
    @Test
    void onePumpClaimsForAllItsWaitersInOneTransaction() {
        Spec batch = server.spec("batch");
        List<TestRunner> runners =
                List.of(connect(server.runner(batch)), connect(server.runner(batch)), connect(server.runner(batch)));
        for (TestRunner r : runners) waitFor(r, 60);
        // Two jobs dispatch is not told about, then one it is: that one pump finds all three.
        java.util.Set<dev.baton.protocol.id.JobUuid> jobs = new java.util.HashSet<>(List.of(
                server.createPendingUnannounced(batch).uuid(),
                server.createPendingUnannounced(batch).uuid()));
        int before = server.claims.get();
        jobs.add(server.submit(batch).uuid());
        java.util.Set<dev.baton.protocol.id.JobUuid> handed = new java.util.HashSet<>();
        for (TestRunner r : runners)
            handed.add(r.expect(ServerMessage.Job.class).job().uuid());
        assertThat(handed).as("each runner one job, each job once").isEqualTo(jobs);
        assertThat(server.claims.get() - before)
                .as("claim transactions for three waiters")
                .isEqualTo(1);
    }

    /** A runner offering several slots gets them filled by one claim transaction, never more jobs than slots. */
    @Test
    void aReadyWithSeveralSlotsIsFilledByOneClaimTransaction() {
        Spec batch = server.spec("slots");
        TestRunner runner = connect(server.runner(batch));
        java.util.Set<dev.baton.protocol.id.JobUuid> jobs = new java.util.HashSet<>();
        for (int i = 0; i < 4; i++) jobs.add(server.submit(batch).uuid());
        int before = server.claims.get();
        runner.send(new RunnerMessage.Ready(60, "linux", "x86_64", "test", 3));
        java.util.Set<dev.baton.protocol.id.JobUuid> handed = new java.util.HashSet<>();
        for (int i = 0; i < 3; i++)
            handed.add(runner.expect(ServerMessage.Job.class).job().uuid());
        runner.expectSilence(SHORT);
        assertThat(jobs).containsAll(handed);
        assertThat(handed).hasSize(3);
        assertThat(server.claims.get() - before)
                .as("claim transactions for three slots")
                .isEqualTo(1);
    }

    @Test
    void finishedJobsDoNotCostAClaimWhenNothingIsPending() {
        Job job = server.submit(spec);
        TestRunner a = connect(alice);
        ClaimedJob claimed = claim(a);
        TestRunner b = connect(server.runner(spec));
        waitFor(b, 60);
        int before = server.claims.get();
        start(a, claimed);
        complete(a, claimed); // frees a slot: dispatch looks for work for b, finds none pending
        awaitStatus(job, JobStatus.PROCESSED);
        assertThat(server.claims.get())
                .as("claim transactions with nothing pending")
                .isEqualTo(before);
        Job next = server.submit(spec);
        assertThat(b.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(next.uuid());
    }

    /**
     * Issue 13 (ADR 0020): dispatch asks the store whether anything is pending only when it cannot
     * know: not for a job it was just told about, and not again for specs the store said have
     * nothing pending until a job of them is heard of.
     */
    @Test
    void dispatchAsksWhetherAnythingIsPendingOnlyWhenItCannotKnow() throws Exception {
        try (AutoCloseable held = server.holdFallbackSweep()) {
            TestRunner a = connect(alice);
            waitFor(a, 60); // asks: nothing pending
            int before = server.pendingReads.get();
            TestRunner b = connect(server.runner(spec));
            waitFor(b, 60);
            assertThat(server.pendingReads.get() - before)
                    .as("a ready for specs known to have nothing pending")
                    .isZero();

            Job job = server.submit(spec);
            ClaimedJob claimed = a.expect(ServerMessage.Job.class).job();
            assertThat(claimed.uuid()).isEqualTo(job.uuid());
            assertThat(server.pendingReads.get() - before)
                    .as("the pump of a job just submitted")
                    .isZero();

            start(a, claimed);
            complete(a, claimed); // the finished job's pump asks once for b: a job was heard of since the last answer
            await().atMost(Duration.ofSeconds(10)).until(() -> server.pendingReads.get() - before == 1);
            waitFor(a, 60);
            awaitStatus(job, JobStatus.PROCESSED);
            assertThat(server.pendingReads.get() - before)
                    .as("reads for one job's whole lifecycle")
                    .isEqualTo(1);

            Job next = server.submit(spec);
            assertThat(b.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(next.uuid());
            assertThat(server.pendingReads.get() - before).isEqualTo(1);
        }
    }

    /** What no notification told (here: a job committed without one) is found by the fallback sweep, which asks the store again. */
    @Test
    void aJobNobodyAnnouncedIsFoundByTheFallbackSweepEvenWhenNothingWasKnownPending() {
        TestRunner a = connect(alice);
        waitFor(a, 60); // the store says nothing is pending, and dispatch remembers it
        Job job = server.createPendingUnannounced(spec);
        TestRunner b = connect(server.runner(spec));
        waitFor(b, 60); // may not ask (known empty); the fallback sweep, once a second, does
        Set<Object> got = new HashSet<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            for (TestRunner r : List.of(a, b)) {
                if (r.poll(Duration.ofMillis(50)) instanceof ServerMessage.Job m)
                    got.add(m.job().uuid());
            }
            return !got.isEmpty();
        });
        assertThat(got).containsExactly(job.uuid());
    }

    /**
     * A {@code completed} that arrives just after another node canceled the job (this node has
     * not heard of it yet) is refused, and the output it carried is not kept: a canceled job shows
     * no output of a completion that was never applied.
     */
    @Test
    void aCompletedRefusedBecauseAnotherNodeCanceledTheJobLeavesNoOutput() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.store
                .transitions()
                .cancel(
                        job.uuid(),
                        null,
                        "canceled by user",
                        server.clock.instant()); // the other node's cancel, not announced here
        complete(runner, claimed);
        assertThat(status(job)).isEqualTo(JobStatus.CANCELED);
        assertThat(server.outputs.get(
                        server.project.uuid(), job.uuid(), server.job(job).attempt()))
                .as("output of the refused completion")
                .isEmpty();
    }

    /**
     * The same for a {@code failed}: the job is read in flight, another node cancels it before the
     * transition, the store refuses the failure, and the output the failure carried is not kept.
     */
    @Test
    void aFailedRefusedBecauseAnotherNodeCanceledTheJobLeavesNoOutput() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.beforeNextFail.set(
                () -> server.store.transitions().cancel(job.uuid(), null, "canceled by user", server.clock.instant()));
        runner.send(new RunnerMessage.Failed(
                claimed.uuid(), claimed.lease(), List.of(iteration(3, "boom")), "exit code 3"));
        runner.expect(ServerMessage.Ack.class);
        assertThat(server.beforeNextFail.get())
                .as("the other node's cancel ran")
                .isNull();
        assertThat(status(job)).isEqualTo(JobStatus.CANCELED);
        assertThat(server.outputs.get(
                        server.project.uuid(), job.uuid(), server.job(job).attempt()))
                .as("output of the refused failure")
                .isEmpty();
    }

    @Test
    void priorityOrderingAndFifoWithinATier() {
        Organization free = server.organization(PlanTier.FREE);
        Organization enterprise = server.organization(PlanTier.ENTERPRISE);
        Job team1 = server.submit(spec);
        server.clock.advance(Duration.ofSeconds(1));
        Job team2 = server.submit(spec);
        Job ent = server.submit(spec, enterprise, "192.0.2.9", 600, List.of());
        Job freeJob = server.submit(spec, free, "192.0.2.8", 600, List.of());
        TestRunner runner = connect(alice);
        List<Object> order = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ClaimedJob c = claim(runner);
            order.add(c.uuid());
            complete(runner, c);
        }
        assertThat(order).containsExactly(ent.uuid(), team1.uuid(), team2.uuid(), freeJob.uuid());
    }

    @Test
    void fifoOnEqualTimestampsByInsertionOrder() {
        Job a = server.submit(spec);
        Job b = server.submit(spec);
        Job c = server.submit(spec);
        TestRunner runner = connect(alice);
        List<Object> order = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ClaimedJob claimed = claim(runner);
            order.add(claimed.uuid());
            complete(runner, claimed);
        }
        assertThat(order).containsExactly(a.uuid(), b.uuid(), c.uuid());
    }

    @Test
    void freeTierRunsOneJobPerOrganizationAndCompletionUnblocksTheNext() {
        Organization free = server.organization(PlanTier.FREE);
        Job first = server.submit(spec, free, "192.0.2.1", 600, List.of());
        Job second = server.submit(spec, free, "192.0.2.2", 600, List.of());
        TestRunner r1 = connect(alice);
        TestRunner r2 = connect(server.runner(spec));
        ClaimedJob c1 = claim(r1);
        assertThat(c1.uuid()).isEqualTo(first.uuid());
        r2.send(ready());
        r2.expectSilence(SHORT);
        assertThat(status(second)).isEqualTo(JobStatus.PENDING);
        complete(r1, c1);
        assertThat(r2.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(second.uuid());
    }

    @Test
    void unclaimedTierRunsOneJobPerSourceIp() {
        Organization anonymous = server.organization(PlanTier.UNCLAIMED);
        Job first = server.submit(spec, anonymous, "198.51.100.7", 600, List.of());
        Job sameIp = server.submit(spec, anonymous, "198.51.100.7", 600, List.of());
        Job otherIp = server.submit(spec, anonymous, "198.51.100.8", 600, List.of());
        TestRunner r1 = connect(alice);
        TestRunner r2 = connect(server.runner(spec));
        assertThat(claim(r1).uuid()).isEqualTo(first.uuid());
        assertThat(claim(r2).uuid()).isEqualTo(otherIp.uuid());
        assertThat(status(sameIp)).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void highPrioritySkipsABlockedJob() {
        Organization free = server.organization(PlanTier.FREE);
        Job running = server.submit(spec, free, "192.0.2.1", 600, List.of());
        TestRunner r1 = connect(alice);
        assertThat(claim(r1).uuid()).isEqualTo(running.uuid());
        Job blocked = server.submit(spec, free, "192.0.2.1", 600, List.of());
        server.clock.advance(Duration.ofSeconds(1));
        Job unclaimed = server.submit(spec, server.organization(PlanTier.UNCLAIMED), "203.0.113.5", 600, List.of());
        TestRunner r2 = connect(server.runner(spec));
        assertThat(claim(r2).uuid()).isEqualTo(unclaimed.uuid());
        assertThat(status(blocked)).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void concurrentClaimsByManyRunnersNeverDoubleClaim() throws Exception {
        int jobs = 30;
        for (int i = 0; i < jobs; i++) server.submit(spec);
        List<TestRunner> runners = new ArrayList<>();
        for (int i = 0; i < 8; i++) runners.add(connect(server.runner(spec)));
        Set<Object> seen = new HashSet<>();
        int total = 0;
        while (total < jobs) {
            for (TestRunner r : runners) r.send(new RunnerMessage.Ready(1, "linux", "x86_64", "t", 1));
            for (TestRunner r : runners) r.send(new RunnerMessage.Heartbeat(null, null));
            List<ServerMessage> firsts = new ArrayList<>();
            for (TestRunner r : runners) {
                ServerMessage m = r.next();
                if (m instanceof ServerMessage.Ack) {
                    firsts.add(null); // waiting: no job for it in this round
                } else {
                    r.expect(ServerMessage.Ack.class);
                    firsts.add(m);
                }
            }
            advance(Duration.ofSeconds(2));
            for (int i = 0; i < runners.size(); i++) {
                TestRunner r = runners.get(i);
                ServerMessage m = firsts.get(i) != null ? firsts.get(i) : r.next();
                if (m instanceof ServerMessage.Job j) {
                    assertThat(seen.add(j.job().uuid()))
                            .as("job handed out once")
                            .isTrue();
                    total++;
                    r.send(new RunnerMessage.Completed(j.job().uuid(), j.job().lease(), List.of(iteration(0, "{}"))));
                    r.expect(ServerMessage.Ack.class);
                }
            }
        }
        assertThat(seen).hasSize(jobs);
    }

    @Test
    void specMismatchNeverClaims() {
        Spec arm = server.spec("arm large");
        Job job = server.submit(arm);
        TestRunner runner = connect(alice);
        waitFor(runner, 5);
        advance(Duration.ofSeconds(6));
        runner.expect(ServerMessage.NoJob.class);
        assertThat(status(job)).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void pollTimeoutGivesNoJob() {
        TestRunner runner = connect(alice);
        waitFor(runner, 10);
        advance(Duration.ofSeconds(9));
        runner.expectSilence(SHORT);
        advance(Duration.ofSeconds(2));
        runner.expect(ServerMessage.NoJob.class);
    }

    @Test
    void pollTimeoutOutOfRangeIsRejected() {
        TestRunner runner = connect(alice);
        runner.sendRaw("{\"event\":\"ready\",\"poll_timeout\":0}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_poll_timeout");
        runner.sendRaw("{\"event\":\"ready\",\"poll_timeout\":901}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_poll_timeout");
        runner.sendRaw("{\"event\":\"ready\",\"poll_timeout\":900}");
        Job job = server.submit(spec);
        assertThat(runner.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
    }

    @Test
    void aRunnerWithTwoSlotsHoldsTwoJobs() {
        Job a = server.submit(spec);
        Job b = server.submit(spec);
        TestRunner runner = connect(alice);
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 2));
        Set<Object> got = Set.of(
                runner.expect(ServerMessage.Job.class).job().uuid(),
                runner.expect(ServerMessage.Job.class).job().uuid());
        assertThat(got).containsExactlyInAnyOrder(a.uuid(), b.uuid());
    }

    // ---- two-phase acceptance --------------------------------------------------------------------

    @Test
    void aDeclinedJobGoesToAnotherRunner() {
        Job job = server.submit(spec);
        TestRunner a = connect(alice);
        ClaimedJob first = claim(a);
        TestRunner b = connect(server.runner(spec));
        b.send(ready());
        b.expectSilence(SHORT);
        a.send(new RunnerMessage.Declined(first.uuid(), first.lease(), "unsupported architecture"));
        a.expect(ServerMessage.Ack.class);
        ClaimedJob second = b.expect(ServerMessage.Job.class).job();
        assertThat(second.uuid()).isEqualTo(job.uuid());
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.lease().matches(first.lease())).isFalse();
        // The runner that declined is not handed the same job again.
        b.send(new RunnerMessage.Declined(second.uuid(), second.lease(), "disk full"));
        b.expect(ServerMessage.Ack.class);
        waitFor(a, 1);
        advance(Duration.ofSeconds(2));
        a.expect(ServerMessage.NoJob.class);
    }

    @Test
    void acceptanceWindowExpiryRequeues() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        advance(Duration.ofSeconds(20));
        runner.send(new RunnerMessage.Heartbeat(null, null)); // connection alive, but no acceptance
        runner.expect(ServerMessage.Ack.class);
        advance(ACCEPTANCE_TIMEOUT.minusSeconds(19));
        assertThat(runner.expect(ServerMessage.Stale.class).reason()).isEqualTo("acceptance_timeout");
        awaitStatus(job, JobStatus.PENDING);
        assertThat(server.job(job).started()).isNull();
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Stale.class);
    }

    @Test
    void preparingExtendsTheAcceptanceWindow() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        for (int i = 0; i < 4; i++) {
            advance(ACCEPTANCE_TIMEOUT.minusSeconds(5));
            runner.send(new RunnerMessage.Preparing(claimed.uuid(), claimed.lease(), "pulling layer " + i));
            runner.expect(ServerMessage.Ack.class);
        }
        assertThat(status(job)).isEqualTo(JobStatus.CLAIMED);
        start(runner, claimed);
    }

    @Test
    void disconnectBeforeRunningRequeues() {
        Job job = server.submit(spec);
        TestRunner first = connect(alice);
        claim(first);
        first.crash();
        await().atMost(Duration.ofSeconds(5)).until(this::runnerConnectionsGone);
        advance(HEARTBEAT_TIMEOUT.plusSeconds(1));
        awaitStatus(job, JobStatus.PENDING);
        assertThat(server.job(job).requeues()).isEqualTo(1);
    }

    @Test
    void requeuesAreBounded() {
        Job job = server.submit(spec);
        for (int i = 0; i <= server.config.maxRequeues(); i++) {
            TestRunner r = connect(server.runner(spec));
            ClaimedJob c = claim(r);
            r.send(new RunnerMessage.Declined(c.uuid(), c.lease(), "no"));
            r.expect(ServerMessage.Ack.class);
        }
        assertThat(status(job)).isEqualTo(JobStatus.FAILED);
        assertThat(server.job(job).error()).containsIgnoringCase("requeue");
    }

    // ---- opt-in retries -----------------------------------------------------------------------

    @Test
    void aFailedJobThatOptedInIsRetriedAfterItsBackoffAsANewAttempt() {
        Job job = server.submit(spec, new RetryPolicy(2, 10, false));
        TestRunner runner = connect(alice);
        ClaimedJob first = claim(runner);
        start(runner, first);
        var failed = new RunnerMessage.Failed(first.uuid(), first.lease(), List.of(), "flaky");
        runner.send(failed);
        runner.expect(ServerMessage.Ack.class);
        assertThat(status(job)).isEqualTo(JobStatus.PENDING);
        runner.send(failed); // resent after the retry: acknowledged, changes nothing
        runner.expect(ServerMessage.Ack.class);

        waitFor(runner, 60);
        advance(Duration.ofSeconds(9));
        runner.expectSilence(SHORT); // still in its backoff
        advance(Duration.ofSeconds(2));
        ClaimedJob second = runner.expect(ServerMessage.Job.class).job();
        assertThat(second.attempt()).isEqualTo(2);
        start(runner, second);
        runner.send(new RunnerMessage.Failed(second.uuid(), second.lease(), List.of(), "flaky again"));
        runner.expect(ServerMessage.Ack.class);
        assertThat(status(job)).as("attempts exhausted").isEqualTo(JobStatus.FAILED);
    }

    @Test
    void aLostRunnerRetriesOnlyWhenTheJobSaysSo() {
        Job retried = server.submit(spec, new RetryPolicy(3, 0, true));
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        advance(HEARTBEAT_TIMEOUT.plusSeconds(2));
        awaitStatus(retried, JobStatus.PENDING);

        Job notRetried = server.submit(spec, new RetryPolicy(3, 0, false));
        server.cancel(retried);
        TestRunner again = connect(alice);
        ClaimedJob c2 = claim(again);
        assertThat(c2.uuid()).isEqualTo(notRetried.uuid());
        start(again, c2);
        advance(HEARTBEAT_TIMEOUT.plusSeconds(2));
        awaitStatus(notRetried, JobStatus.FAILED);
    }

    /**
     * Over the real channel (issue 41): an executor that failed under the job is the machine's
     * fault and retried under on: [infrastructure]; the benchmark's own exit 1 then ends the job.
     */
    @Test
    void retryOnInfrastructureRetriesAnExecutorErrorAndNotTheBenchmarksExit() {
        Job job = server.submit(spec, new RetryPolicy(3, 0, Set.of(FailureKind.INFRASTRUCTURE), Set.of()));
        TestRunner runner = connect(alice);
        ClaimedJob first = claim(runner);
        start(runner, first);
        runner.send(RunnerMessage.Failed.because(
                first.uuid(), first.lease(), List.of(), "executor error: runc exited 1", FailureCode.EXECUTOR_ERROR));
        runner.expect(ServerMessage.Ack.class);
        assertThat(status(job)).as("the machine's fault: retried").isEqualTo(JobStatus.PENDING);

        ClaimedJob second = claim(runner); // a backoff of 0 s: at once
        assertThat(second.attempt()).isEqualTo(2);
        start(runner, second);
        runner.send(RunnerMessage.Failed.because(
                second.uuid(),
                second.lease(),
                List.of(new IterationResult(1, "", "", Map.of())),
                "iteration 0 exited with code 1",
                FailureCode.EXIT_CODE));
        runner.expect(ServerMessage.Ack.class);
        assertThat(status(job)).as("the benchmark's own failure is signal").isEqualTo(JobStatus.FAILED);
        long id = server.store.runs().findJob(job.uuid()).orElseThrow().id();
        assertThat(server.store.runs().attemptEnds(id))
                .containsExactly(
                        Map.entry(1, new AttemptEnd(FailureKind.INFRASTRUCTURE, null, true, null)),
                        Map.entry(2, new AttemptEnd(FailureKind.FAILURE, 1, false, NotRetried.NOT_IN_RETRY_ON)));
    }

    @Test
    void aLostRunnerIsNotRetriedWhenRetryOnLeavesItOut() {
        Job job = server.submit(
                spec, new RetryPolicy(3, 0, Set.of(FailureKind.INFRASTRUCTURE, FailureKind.FAILURE), Set.of()));
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        advance(HEARTBEAT_TIMEOUT.plusSeconds(2));
        awaitStatus(job, JobStatus.FAILED);
        long id = server.store.runs().findJob(job.uuid()).orElseThrow().id();
        assertThat(server.store.runs().attemptEnds(id).get(1))
                .isEqualTo(new AttemptEnd(FailureKind.RUNNER_LOST, null, false, NotRetried.NOT_IN_RETRY_ON));
    }

    // ---- recovery and usage ----------------------------------------------------------------------

    @Test
    void startupRecoveryOfClaimedRunningAndCompletedUnprocessedJobs() {
        Job stillInWindow = server.submit(spec);
        Job running = server.submit(spec);
        TestRunner r1 = connect(alice);
        RunnerHandle bobHandle = server.runner(spec);
        TestRunner r2 = connect(bobHandle);
        ClaimedJob c1 = claim(r1);
        ClaimedJob c2 = claim(r2);
        start(r2, c2);
        server.stopServer();
        Job unprocessed = server.submit(spec); // will be completed directly in the store
        var lease = LeaseId.random();
        TestClaims.claim(server.store, server.runner(spec).runner().id(), lease, server.clock.instant());
        server.store.transitions().complete(unprocessed.uuid(), lease, server.clock.instant());
        server.outputs.put(
                server.project.uuid(),
                unprocessed.uuid(),
                server.job(unprocessed).attempt(),
                new JobOutput(List.of(iteration(0, "{}")), null));

        server.clock.advance(ACCEPTANCE_TIMEOUT.plusSeconds(1));
        server.startServer();
        server.channel().runDueDeadlines();
        // claimed past the acceptance window: requeued; completed-unprocessed: processed
        assertThat(status(stillInWindow)).isEqualTo(JobStatus.PENDING);
        awaitStatus(unprocessed, JobStatus.PROCESSED);
        // running: kept while its runner comes back within the heartbeat timeout
        TestRunner back = connect(bobHandle);
        heartbeat(back, c2);
        advance(HEARTBEAT_TIMEOUT.plusSeconds(1));
        assertThat(status(running)).isEqualTo(JobStatus.FAILED); // its channel went silent after the heartbeat
        assertThat(c1.uuid()).isEqualTo(stillInWindow.uuid());
    }

    @Test
    void usageMinutesAreBilledOnce() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        advance(Duration.ofSeconds(25)); // prepare time: never billed
        start(runner, claimed);
        for (int i = 0; i < 7; i++) {
            advance(Duration.ofSeconds(30));
            heartbeat(runner, claimed);
            runner.send(new RunnerMessage.Heartbeat(claimed.uuid(), claimed.lease())); // early duplicate
            runner.expect(ServerMessage.Ack.class);
        }
        complete(runner, claimed);
        complete(runner, claimed);
        assertThat(server.store.liveness().billedMinutes(server.organization.id()))
                .isEqualTo(3);
        assertThat(server.job(job).lastBilledMinute()).isEqualTo(3);
    }

    @Test
    void heartbeatsLiveInMemoryAndReachTheDatabaseInBatches() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        server.channel().flushHeartbeats();
        var before = server.job(job).lastHeartbeat();
        server.clock.advance(Duration.ofSeconds(7));
        heartbeat(runner, claimed);
        assertThat(server.job(job).lastHeartbeat())
                .as("not written per heartbeat")
                .isEqualTo(before);
        server.channel().flushHeartbeats();
        assertThat(server.job(job).lastHeartbeat()).isEqualTo(server.clock.instant());
        assertThat(server.store
                        .runners()
                        .findRunner(alice.runner().id())
                        .orElseThrow()
                        .lastHeartbeat())
                .isEqualTo(server.clock.instant());
    }

    @Test
    void metricsAreExposedForPrometheus() throws Exception {
        server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = claim(runner);
        start(runner, claimed);
        var response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(server.http("/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body())
                .contains("baton_job_queue_duration_seconds")
                .contains("priority_tier=\"team\"")
                .contains("baton_runner_job_claims_total")
                .contains("baton_job_transitions_total{kind=\"start\"}")
                .contains("baton_job_acceptance_total{result=\"accepted\"}")
                .contains("baton_runners_connected")
                .contains("baton_jobs_in_flight");
    }
}

package dev.baton.dispatch.channel;

import static dev.baton.server.testing.ChannelFixture.HEARTBEAT_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Job;
import dev.baton.store.Spec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code log} message on the channel: liveness, fencing and validation, on the test clock. */
class LogChannelTest {
    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    RunnerHandle alice;
    final List<TestRunner> connections = new ArrayList<>();

    @BeforeEach
    void start() {
        server = new ChannelFixture(null, dataDir);
        spec = server.spec("x86 small");
        alice = server.runner(spec);
    }

    @AfterEach
    void stop() {
        connections.forEach(TestRunner::crash);
        server.close();
    }

    TestRunner connect(RunnerHandle handle) {
        TestRunner r = server.connect(handle);
        connections.add(r);
        return r;
    }

    ClaimedJob running(TestRunner runner) {
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        return claimed;
    }

    @Test
    void logsAloneKeepARunningAttemptAlive() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = running(runner);
        for (int i = 1; i <= 10; i++) {
            server.advance(HEARTBEAT_TIMEOUT.dividedBy(2));
            runner.send(RunnerMessage.Log.text(
                    claimed.uuid(), claimed.lease(), i, LogStream.STDOUT, 0, "tick " + i + "\n"));
            runner.expect(ServerMessage.Ack.class);
        }
        assertThat(server.job(job).status()).isEqualTo(JobStatus.RUNNING);
        assertThat(runner.isClosed()).isFalse();
    }

    @Test
    void anInvalidLogIsRefusedAndDoesNotResetTheReadTimer() {
        Job job = server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = running(runner);
        server.advance(HEARTBEAT_TIMEOUT.minusSeconds(10));
        String valid =
                Wire.encode(RunnerMessage.Log.text(claimed.uuid(), claimed.lease(), 1, LogStream.STDOUT, 0, "x\n"));
        runner.sendRaw(valid.replace("\"seq\":1", "\"seq\":\"1\""));
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        runner.sendRaw(valid.replace(
                "\"text\":\"x\\n\"", "\"text\":\"" + "y".repeat(RunnerMessage.Log.MAX_TEXT_BYTES + 1) + "\""));
        assertThat(runner.expect(ServerMessage.Error.class).message()).contains("16384");
        server.advance(java.time.Duration.ofSeconds(12));
        assertThat(server.job(job).status()).isEqualTo(JobStatus.FAILED);
    }

    @Test
    void anotherRunnersConnectionCannotLogUnderTheLease() {
        server.submit(spec);
        TestRunner runner = connect(alice);
        ClaimedJob claimed = running(runner);
        TestRunner bob = connect(server.runner(spec));
        bob.send(RunnerMessage.Log.text(claimed.uuid(), claimed.lease(), 1, LogStream.STDOUT, 0, "not mine\n"));
        assertThat(bob.expect(ServerMessage.Error.class).code()).isEqualTo("not_your_job");
    }
}

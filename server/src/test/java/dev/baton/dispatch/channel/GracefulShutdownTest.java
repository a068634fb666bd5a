package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.dispatch.RunnerSession;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Runner;
import dev.baton.web.http.TestServer;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole server (as `baton server` assembles it) closes runner channels with 4003 before HTTP stops. */
class GracefulShutdownTest {
    @TempDir
    Path dataDir;

    @Test
    void aConnectedRunnerSeesCloseCode4003OnGracefulShutdown() {
        BatonServer server = ServerAssembly.start(TestServer.config(dataDir));
        TestRunner runner;
        try {
            RunnerKey key = RunnerKey.generate();
            Runner r = server.store().runners().createRunner("r1", Slug.of("r1"), key.hash(), Instant.now());
            runner = TestRunner.connect(
                    URI.create("ws://127.0.0.1:" + server.port() + "/v0/runners/r1/channel"), key.reveal());
            runner.send(new RunnerMessage.Heartbeat(null, null));
            runner.expect(ServerMessage.Ack.class);
            assertThat(r.slug().toString()).isEqualTo("r1");
        } finally {
            server.close();
        }
        assertThat(runner.awaitClose()).isEqualTo(RunnerSession.CLOSE_SHUTDOWN);
    }
}

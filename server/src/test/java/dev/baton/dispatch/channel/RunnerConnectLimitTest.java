package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.config.EdgeSettings;
import dev.baton.dispatch.RunnerSession;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Spec;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runner key that churns connect/ready cycles is refused after its burst with close code 4029
 * and counted in baton_runner_connects_refused_total, through the real channel; the injected
 * clock earns it its connects back (issue 41).
 */
class RunnerConnectLimitTest {
    static final int PER_MINUTE = 6;
    static final int BURST = 3;
    static final String REFUSED = "baton_runner_connects_refused_total{reason=\"connect_rate\"}";

    @TempDir
    Path dataDir;

    ChannelFixture server;

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    @Test
    void aKeyThatReconnectsInALoopIsRefusedAfterItsBurstAndLetBackAsTheClockAdvances() {
        server = new ChannelFixture(
                null,
                dataDir,
                c -> c.toBuilder()
                        .edge(EdgeSettings.DEFAULTS.withRunnerConnects(PER_MINUTE, BURST))
                        .build());
        Spec spec = server.spec("small");
        var handle = server.runner(spec);
        var other = server.runner(spec);

        for (int i = 0; i < BURST; i++) {
            TestRunner runner = server.connect(handle);
            assertThat(runner.welcome().runner())
                    .isEqualTo(handle.runner().slug().value());
            runner.send(new RunnerMessage.Ready(1, "linux", "x86_64", "test", 1));
            runner.close();
        }
        TestRunner refused = server.connect(handle);
        assertThat(refused.awaitClose()).isEqualTo(RunnerSession.CLOSE_TOO_MANY_CONNECTS);
        assertThat(server.metrics().scrape()).contains(REFUSED + " 1.0");

        // Another key has its own bucket.
        TestRunner neighbour = server.connect(other);
        assertThat(neighbour.welcome().runner()).isEqualTo(other.runner().slug().value());

        // One connect is earned back every 10 s (6 a minute): 9 s is not enough, 10 s is.
        server.advance(Duration.ofSeconds(9));
        assertThat(server.connect(handle).awaitClose()).isEqualTo(RunnerSession.CLOSE_TOO_MANY_CONNECTS);
        server.advance(Duration.ofSeconds(1));
        TestRunner back = server.connect(handle);
        assertThat(back.welcome().runner()).isEqualTo(handle.runner().slug().value());
        assertThat(server.metrics().scrape()).contains(REFUSED + " 2.0");

        // A refused connect leaves the runner's open channel alone (it is not "replaced").
        assertThat(server.connect(handle).awaitClose()).isEqualTo(RunnerSession.CLOSE_TOO_MANY_CONNECTS);
        back.send(new RunnerMessage.Heartbeat(null, null));
        assertThat(back.expect(ServerMessage.Ack.class)).isNotNull();
        assertThat(back.isClosed()).isFalse();
        back.close();
        neighbour.close();
    }
}

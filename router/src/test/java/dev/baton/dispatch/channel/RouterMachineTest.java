package dev.baton.dispatch.channel;

import static dev.baton.server.testing.ChannelFixture.ACCEPTANCE_TIMEOUT;
import static dev.baton.server.testing.ChannelFixture.HEARTBEAT_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.Router;
import dev.baton.router.RouterKeys;
import dev.baton.router.RouterSettings;
import dev.baton.router.policy.FirstCome;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Job;
import dev.baton.store.Spec;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41 through a real {@code baton router}: the attempt of a job run by a runner behind the
 * router records that runner's machine (what it said in {@code ready}, and the address it
 * connected to the router from), not the router's; the router's own machine stays the router
 * runner's, without an architecture of its own.
 */
class RouterMachineTest {
    private static final Instant STARTED = Instant.parse("2026-11-29T05:00:00Z");

    @TempDir
    Path dataDir;

    ChannelFixture server;
    Router router;
    TestRunner runner;

    @BeforeEach
    void start() {
        server = new ChannelFixture(null, dataDir);
    }

    @AfterEach
    void stop() {
        if (runner != null) runner.crash();
        if (router != null) router.close();
        server.close();
    }

    @Test
    void theAttemptRecordsTheMachineBehindTheRouter() throws Exception {
        Spec spec = server.spec("bench box");
        RunnerHandle routerRunner = server.runner(spec);
        router = Router.start(
                new Router.Options(
                        server.http(""),
                        routerRunner.runner().slug().value(),
                        RunnerKey.parse(routerRunner.key()),
                        "127.0.0.1",
                        0,
                        dataDir.resolve("router-keys"),
                        dataDir.resolve("router-state"),
                        new FirstCome(),
                        RouterSettings.defaults("router")
                                .withHeartbeatTimeout(HEARTBEAT_TIMEOUT)
                                .withAcceptanceWindow(ACCEPTANCE_TIMEOUT)),
                server.clock);
        RunnerKey key = RouterKeys.issue(
                dataDir.resolve("router-keys"), "bench-7", List.of(spec.slug().value()));
        runner = TestRunner.connect(
                URI.create("ws://127.0.0.1:" + router.port() + "/v0/runners/bench-7/channel"), key.reveal());
        runner.welcome();
        Job job = server.submit(spec);
        runner.send(new RunnerMessage.Ready(
                600, "linux", "x86_64", "1.2.3", 1, null, null, null, null, null, "bench-7.lab", 777L, STARTED));
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);

        assertThat(server.store.runners().attemptMachines(job.id()).get(1).host())
                .isEqualTo(new RunnerHost("linux", "x86_64", "1.2.3", "bench-7.lab", 777L, STARTED, "127.0.0.1"));
        await().until(() ->
                server.store.runners().latestMachine(routerRunner.runner().id()).isPresent());
        RunnerHost own = server.store
                .runners()
                .latestMachine(routerRunner.runner().id())
                .orElseThrow()
                .host();
        assertThat(own.host()).as("the router's own machine").isNotEqualTo("bench-7.lab");
        assertThat(own.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(own.arch())
                .as("a router stands for runners of any architecture")
                .isNull();
    }
}

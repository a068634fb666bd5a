package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Job;
import dev.baton.store.KnownMachine;
import dev.baton.store.Spec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41's "every machine known" over real WebSockets and a real store, once per dialect: what
 * a runner says of its machine in {@code ready} is kept with the address it connected from, on the
 * runner and on each attempt it claims; a router's {@code running} names the machine behind it,
 * which the attempt records instead of the router's; a runner on another architecture than its
 * spec's is refused; {@code /metrics} labels each connected runner with its machine.
 */
abstract class RunnerMachineContract {
    private static final Instant STARTED = Instant.parse("2026-11-29T05:00:00Z");

    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    final List<TestRunner> connections = new ArrayList<>();

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("bench box");
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

    private static RunnerMessage.Ready ready(String arch, String host, long pid) {
        return new RunnerMessage.Ready(
                600, "linux", arch, "1.2.3", 1, null, null, null, null, null, host, pid, STARTED);
    }

    private Optional<KnownMachine> machine(RunnerHandle h) {
        return server.store.runners().latestMachine(h.runner().id());
    }

    @Test
    void theMachineOfReadyIsKeptOnTheRunnerAndOnTheAttemptItClaims() {
        RunnerHandle alice = server.runner(spec);
        TestRunner runner = connect(alice);
        Job job = server.submit(spec);
        runner.send(ready("x86_64", "bench-1.lab", 4242));
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        assertThat(claimed.uuid()).isEqualTo(job.uuid());

        RunnerHost expected = new RunnerHost("linux", "x86_64", "1.2.3", "bench-1.lab", 4242L, STARTED, "127.0.0.1");
        assertThat(machine(alice)).hasValueSatisfying(m -> assertThat(m.host()).isEqualTo(expected));
        assertThat(server.store.runners().attemptMachines(job.id()).get(1).host())
                .isEqualTo(expected);
        assertThat(server.metrics().scrape())
                .contains("baton_runner_info{arch=\"x86_64\",host=\"bench-1.lab\",os=\"linux\",runner=\""
                        + alice.runner().slug().value() + "\",version=\"1.2.3\"} 1");
    }

    @Test
    void anOlderRunnersReadyStillRecordsWhatItSaysAndTheAddress() {
        RunnerHandle old = server.runner(spec);
        TestRunner runner = connect(old);
        runner.send(new RunnerMessage.Ready(600, "linux", "x86_64", "0.9", 1));
        await().until(() -> machine(old).isPresent());
        assertThat(machine(old).orElseThrow().host())
                .isEqualTo(new RunnerHost("linux", "x86_64", "0.9", null, null, null, "127.0.0.1"));
    }

    @Test
    void aRoutersRunningNamesTheMachineBehindItAndTheAttemptRecordsThat() {
        RunnerHandle router = server.runner(spec);
        TestRunner channel = connect(router);
        Job job = server.submit(spec);
        // A router's ready: no arch of its own, narrowed to its runners' specs.
        channel.send(new RunnerMessage.Ready(
                600,
                "linux",
                null,
                "router",
                1,
                List.of(spec.slug().value()),
                null,
                null,
                null,
                null,
                "router-eu",
                9L,
                STARTED));
        ClaimedJob claimed = channel.expect(ServerMessage.Job.class).job();
        RunnerHost behind = new RunnerHost("linux", "x86_64", "1.2.3", "bench-7.lab", 777L, STARTED, "10.1.2.7");
        channel.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease(), null, behind));
        channel.expect(ServerMessage.Ack.class);
        assertThat(server.store.runners().attemptMachines(job.id()).get(1).host())
                .isEqualTo(behind);
        assertThat(machine(router).orElseThrow().host().host())
                .as("the router's own machine stays the runner's")
                .isEqualTo("router-eu");
    }

    @Test
    void aRunnerOnAnotherArchitectureThanItsSpecIsRefusedSayingWhyAndTakesNoJob() {
        Spec arm = server.store
                .specs()
                .createSpec(
                        "arm box",
                        Slug.of("arm-box"),
                        Architecture.AARCH64,
                        2,
                        1L << 30,
                        10L << 30,
                        false,
                        server.clock.instant());
        RunnerHandle wrong = server.runner(arm);
        server.submit(arm);
        TestRunner runner = connect(wrong);
        runner.send(ready("x86_64", "intel-1", 1));
        ServerMessage.Error error = runner.expect(ServerMessage.Error.class);
        assertThat(error.code()).isEqualTo("wrong_architecture");
        assertThat(error.message()).contains("reports architecture x86_64").contains("spec arm-box (aarch64)");
        assertThat(runner.awaitClose()).isEqualTo(ArchitectureCheck.CLOSE_WRONG_ARCHITECTURE);
        // What it said is still known: the admin sees which machine tried.
        assertThat(machine(wrong).orElseThrow().host().host()).isEqualTo("intel-1");

        // The JVM's name for the same architecture is the same architecture.
        RunnerHandle right = server.runner(spec);
        TestRunner ok = connect(right);
        server.submit(spec);
        ok.send(ready("amd64", "intel-2", 2));
        ok.expect(ServerMessage.Job.class);
    }
}

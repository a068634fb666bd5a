package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.NoiseCode;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Attempt;
import dev.baton.store.Job;
import dev.baton.store.Spec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19's machine fingerprint over real WebSockets and a real store, once per dialect: the
 * spec's requirement reaches the runner with the job, the fingerprint sent with {@code running}
 * or with a {@code noisy_machine} decline is kept on its attempt, and only under a current lease.
 */
abstract class FingerprintContractTest {
    private static final Instant T = Instant.parse("2026-11-24T06:00:00Z");
    private static final MachineFingerprint CLEAN = new MachineFingerprint(
            T,
            "Test CPU",
            4,
            "1-3",
            "performance",
            false,
            "off",
            "6.1.0",
            16L << 30,
            8L << 30,
            0L,
            List.of(0.05, 0.1, 0.2),
            0.01,
            "runc",
            "runc version 1.1.12",
            "0.1.0",
            List.of());
    private static final MachineFingerprint NOISY = new MachineFingerprint(
            T,
            "Test CPU",
            4,
            "1-3",
            "powersave",
            true,
            "on",
            "6.1.0",
            16L << 30,
            8L << 30,
            2L << 30,
            List.of(3.0, 2.0, 1.0),
            0.6,
            "runc",
            "runc version 1.1.12",
            "0.1.0",
            List.of(
                    new MachineFingerprint.Warning(NoiseCode.GOVERNOR, "frequency governor powersave"),
                    new MachineFingerprint.Warning(NoiseCode.SWAP, "swap is on (2048 MiB)")));

    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    RunnerHandle alice;
    final List<TestRunner> connections = new ArrayList<>();

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("bare metal");
        alice = server.runner(spec);
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

    private static ClaimedJob claim(TestRunner runner) {
        runner.send(new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1));
        return runner.expect(ServerMessage.Job.class).job();
    }

    private Attempt attempt(Job job, int number) {
        return server.store.runs().findAttempt(job.id(), number).orElseThrow();
    }

    private static MachineFingerprint decoded(Attempt a) throws Exception {
        return Wire.mapper().readValue(a.fingerprint(), MachineFingerprint.class);
    }

    @Test
    void theSpecsRequirementTravelsWithTheJob() {
        TestRunner runner = connect(alice);
        server.submit(spec);
        assertThat(claim(runner).spec().requireCleanFingerprint()).isFalse();

        Spec strict = server.store.specs().setSpecRequireCleanFingerprint(spec.id(), true, server.clock.instant());
        assertThat(strict.requireCleanFingerprint()).isTrue();
        assertThat(server.store.specs().findSpec(spec.id()).orElseThrow().requireCleanFingerprint())
                .isTrue();
        TestRunner bob = connect(server.runner(spec));
        server.submit(spec);
        assertThat(claim(bob).spec().requireCleanFingerprint()).isTrue();
    }

    @Test
    void theFingerprintSentWithRunningIsKeptOnItsAttempt() throws Exception {
        TestRunner runner = connect(alice);
        Job job = server.submit(spec);
        ClaimedJob claimed = claim(runner);
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease(), CLEAN));
        runner.expect(ServerMessage.Ack.class);
        assertThat(decoded(attempt(job, 1))).isEqualTo(CLEAN);
        // Resent after a reconnect it changes nothing.
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease(), CLEAN));
        runner.expect(ServerMessage.Ack.class);
        assertThat(decoded(attempt(job, 1))).isEqualTo(CLEAN);
    }

    @Test
    void aRunningWithoutAFingerprintLeavesNoneAsOlderRunnersDo() {
        TestRunner runner = connect(alice);
        Job job = server.submit(spec);
        ClaimedJob claimed = claim(runner);
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        assertThat(attempt(job, 1).fingerprint()).isNull();
    }

    @Test
    void aNoisyDeclineKeepsTheFingerprintThatMadeItAndTheJobWaitsSayingWhy() throws Exception {
        TestRunner runner = connect(alice);
        Job job = server.submit(spec);
        ClaimedJob claimed = claim(runner);
        runner.send(new RunnerMessage.Declined(
                claimed.uuid(),
                claimed.lease(),
                DeclineCode.NOISY_MACHINE.wireName(),
                "spec bare-metal requires a clean machine fingerprint: governor: frequency governor powersave",
                NOISY));
        runner.expect(ServerMessage.Ack.class);
        Attempt declined = attempt(job, 1);
        assertThat(declined.declineCode()).isEqualTo("noisy_machine");
        assertThat(decoded(declined)).isEqualTo(NOISY);
        var reason = server.channel().status(server.job(job)).orElseThrow().reason();
        assertThat(reason.declines())
                .singleElement()
                .satisfies(d -> assertThat(d.code()).isEqualTo("noisy_machine"));
    }

    @Test
    void aStaleLeaseWritesNoFingerprint() {
        TestRunner runner = connect(alice);
        Job job = server.submit(spec);
        ClaimedJob first = claim(runner);
        runner.send(new RunnerMessage.Declined(first.uuid(), first.lease(), DeclineCode.OTHER, "not now"));
        runner.expect(ServerMessage.Ack.class);
        // The old lease again, now with a fingerprint: stale, and the attempt stays as it was.
        runner.send(new RunnerMessage.Running(first.uuid(), first.lease(), NOISY));
        runner.expect(ServerMessage.Stale.class);
        assertThat(attempt(job, 1).fingerprint()).isNull();
    }
}

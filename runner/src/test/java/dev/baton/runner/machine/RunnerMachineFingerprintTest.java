package dev.baton.runner.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.NoiseCode;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fingerprint taken before a job starts travels with its {@code running}, also when resent, and with a noisy decline. */
class RunnerMachineFingerprintTest {
    private static final Instant T0 = Instant.parse("2026-11-24T06:00:00Z");
    private static final MachineFingerprint FP = new MachineFingerprint(
            T0,
            "Test CPU",
            2,
            "1",
            "performance",
            false,
            "off",
            "6.1.0",
            1L << 30,
            1L << 29,
            0L,
            List.of(0.1, 0.1, 0.1),
            0.0,
            "process",
            null,
            "test",
            List.of());
    private static final MachineFingerprint NOISY = new MachineFingerprint(
            T0,
            "Test CPU",
            2,
            "1",
            "powersave",
            true,
            "on",
            "6.1.0",
            1L << 30,
            1L << 29,
            0L,
            List.of(0.1, 0.1, 0.1),
            0.0,
            "process",
            null,
            "test",
            List.of(new MachineFingerprint.Warning(NoiseCode.GOVERNOR, "powersave")));

    private final RunnerMachine machine = RunnerMachine.fresh(MachineConfig.defaults("test"), new Random(1));

    private static List<RunnerMessage> sent(List<Effect> effects) {
        return effects.stream()
                .filter(Effect.Send.class::isInstance)
                .map(e -> ((Effect.Send) e).message())
                .toList();
    }

    private ClaimedJob connectedWithJob() {
        machine.handle(new Input.Start(T0));
        machine.handle(new Input.ConnectionOpened(T0));
        ClaimedJob job = Jobs.claimed(60);
        machine.handle(new Input.Received(new ServerMessage.Job(job)));
        return job;
    }

    @Test
    void runningCarriesTheFingerprintAndSoDoesItsResendAfterAReconnect() {
        ClaimedJob job = connectedWithJob();
        machine.handle(new Input.Prepared(job.uuid(), FP));
        assertThat(sent(machine.handle(new Input.Started(job.uuid(), T0))))
                .containsExactly(new RunnerMessage.Running(job.uuid(), job.lease(), FP));

        machine.handle(new Input.ConnectionClosed(T0, "network", false));
        machine.handle(new Input.ReconnectDue(T0.plusSeconds(1)));
        assertThat(sent(machine.handle(new Input.ConnectionOpened(T0.plusSeconds(1)))))
                .contains(new RunnerMessage.Running(job.uuid(), job.lease(), FP));
    }

    @Test
    void aNoisyDeclineCarriesTheFingerprintThatMadeIt() {
        ClaimedJob job = connectedWithJob();
        List<RunnerMessage> out =
                sent(machine.handle(new Input.PrepareDeclined(job.uuid(), DeclineCode.NOISY_MACHINE, "noisy", NOISY)));
        assertThat(out)
                .first()
                .isEqualTo(new RunnerMessage.Declined(job.uuid(), job.lease(), "noisy_machine", "noisy", NOISY));
    }
}

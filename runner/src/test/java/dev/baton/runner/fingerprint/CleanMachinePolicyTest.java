package dev.baton.runner.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.NoiseCode;
import dev.baton.protocol.model.SpecView;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.executor.StartCheck;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CleanMachinePolicyTest {
    private static final Instant T = Instant.parse("2026-11-24T06:00:00Z");

    private static SpecView spec(boolean clean) {
        return new SpecView(
                SpecUuid.random(),
                "bare metal",
                "bare-metal",
                Architecture.X86_64,
                1,
                1L << 30,
                1L << 30,
                false,
                T,
                T,
                null,
                null,
                clean);
    }

    private static MachineFingerprint fingerprint(List<MachineFingerprint.Warning> warnings) {
        return new MachineFingerprint(
                T, null, 1, "0", null, null, null, null, null, null, null, null, null, "process", null, "test",
                warnings);
    }

    @Test
    void onlyASpecThatAsksForACleanMachineDeclinesANoisyOne() {
        var noisy = fingerprint(List.of(
                new MachineFingerprint.Warning(NoiseCode.SWAP, "swap is on (2047 MiB)"),
                new MachineFingerprint.Warning(NoiseCode.SMT, "SMT is on")));
        assertThat(CleanMachinePolicy.check(spec(false), noisy)).isEqualTo(StartCheck.GO);
        assertThat(CleanMachinePolicy.check(null, noisy)).isEqualTo(StartCheck.GO);
        StartCheck check = CleanMachinePolicy.check(spec(true), noisy);
        assertThat(check.decline()).isEqualTo(DeclineCode.NOISY_MACHINE);
        assertThat(check.reason())
                .isEqualTo(
                        "spec bare-metal requires a clean machine fingerprint: swap: swap is on (2047 MiB); smt: SMT is on");
        assertThat(CleanMachinePolicy.check(spec(true), fingerprint(List.of()))).isEqualTo(StartCheck.GO);
    }

    @Test
    void aMachineThatCouldNotBeReadIsNotClean() {
        assertThat(CleanMachinePolicy.check(spec(true), null).decline()).isEqualTo(DeclineCode.NOISY_MACHINE);
    }
}

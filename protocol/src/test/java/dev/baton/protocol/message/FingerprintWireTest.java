package dev.baton.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.NoiseCode;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class FingerprintWireTest {
    private final JobUuid job = JobUuid.random();
    private final LeaseId lease = LeaseId.random();

    static MachineFingerprint sample() {
        return new MachineFingerprint(
                Instant.parse("2026-11-24T06:00:00Z"),
                "AMD EPYC",
                2,
                "1",
                null,
                null,
                "notsupported",
                "6.18.44",
                25_000_000_000L,
                24_000_000_000L,
                0L,
                List.of(1.5, 0.5, 0.25),
                0.75,
                "process",
                null,
                "0.1.0",
                List.of(
                        new MachineFingerprint.Warning(NoiseCode.FREQUENCY_UNKNOWN, "no cpufreq on CPU 1"),
                        new MachineFingerprint.Warning(NoiseCode.BUSY_CPUS, "CPU 1 was 75% busy")));
    }

    @Test
    void runningCarriesTheFingerprintAndUnknownsStayAbsent() {
        String json = Wire.encode(new RunnerMessage.Running(job, lease, sample()));
        assertThat(json)
                .contains("\"cpu_model\":\"AMD EPYC\"")
                .contains("\"job_cpus\":\"1\"")
                .contains("\"load_average\":[1.5,0.5,0.25]")
                .contains("\"code\":\"frequency_unknown\"")
                .doesNotContain("governor")
                .doesNotContain("turbo");
        RunnerMessage.Running back = (RunnerMessage.Running) Wire.decodeRunnerMessage(json);
        assertThat(back.fingerprint()).isEqualTo(sample());
        assertThat(back.fingerprint().clean()).isFalse();
    }

    @Test
    void aRunningWithoutAFingerprintIsAnOlderRunnersAndStillValid() {
        String old = "{\"event\":\"running\",\"job\":\"" + job + "\",\"lease\":\"" + lease.value() + "\"}";
        assertThat(((RunnerMessage.Running) Wire.decodeRunnerMessage(old)).fingerprint())
                .isNull();
    }

    @Test
    void aNoisyDeclineCarriesTheFingerprintThatMadeIt() {
        var d = new RunnerMessage.Declined(job, lease, DeclineCode.NOISY_MACHINE.wireName(), "noisy", sample());
        RunnerMessage.Declined back = (RunnerMessage.Declined) Wire.decodeRunnerMessage(Wire.encode(d));
        assertThat(back.declineCode()).isEqualTo(DeclineCode.NOISY_MACHINE);
        assertThat(back.fingerprint().warnings()).hasSize(2);
    }

    @Test
    void anOutOfBoundsFingerprintIsAnInvalidMessage() {
        String json = Wire.encode(new RunnerMessage.Running(job, lease, sample()));
        assertThatThrownBy(() -> Wire.decodeRunnerMessage(json.replace("0.75", "1.5")))
                .isInstanceOf(InvalidMessageException.class);
        assertThatThrownBy(() -> Wire.decodeRunnerMessage(json.replace("[1.5,0.5,0.25]", "[1.5]")))
                .isInstanceOf(InvalidMessageException.class);
        assertThatThrownBy(() -> Wire.decodeRunnerMessage(json.replace("\"AMD EPYC\"", "\"" + "x".repeat(300) + "\"")))
                .isInstanceOf(InvalidMessageException.class);
    }
}

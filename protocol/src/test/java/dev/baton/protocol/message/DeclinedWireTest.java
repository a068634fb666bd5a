package dev.baton.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import org.junit.jupiter.api.Test;

class DeclinedWireTest {
    private final JobUuid job = JobUuid.random();
    private final LeaseId lease = LeaseId.random();

    @Test
    void aDeclineCarriesItsCodeBesideTheReason() {
        String json =
                Wire.encode(new RunnerMessage.Declined(job, lease, DeclineCode.PULL_FAILED, "registry answered 503"));
        assertThat(json)
                .contains("\"event\":\"declined\"")
                .contains("\"code\":\"pull_failed\"")
                .contains("\"reason\":\"registry answered 503\"");
        RunnerMessage.Declined back = (RunnerMessage.Declined) Wire.decodeRunnerMessage(json);
        assertThat(back.declineCode()).isEqualTo(DeclineCode.PULL_FAILED);
        assertThat(back.reason()).isEqualTo("registry answered 503");
    }

    @Test
    void aDeclineWithoutOrWithAnUnknownCodeReadsAsOther() {
        String old = "{\"event\":\"declined\",\"job\":\"" + job + "\",\"lease\":\"" + lease.value()
                + "\",\"reason\":\"no\"}";
        RunnerMessage.Declined d = (RunnerMessage.Declined) Wire.decodeRunnerMessage(old);
        assertThat(d.code()).isNull();
        assertThat(d.declineCode()).isEqualTo(DeclineCode.OTHER);
        String future = old.replace("\"reason\"", "\"code\":\"gpu_missing\",\"reason\"");
        assertThat(((RunnerMessage.Declined) Wire.decodeRunnerMessage(future)).declineCode())
                .isEqualTo(DeclineCode.OTHER);
    }

    @Test
    void everyCodeHasTheContractsWireName() {
        assertThat(java.util.Arrays.stream(DeclineCode.values()).map(DeclineCode::wireName))
                .containsExactly(
                        "image_refused",
                        "pull_failed",
                        "unpack_failed",
                        "no_command",
                        "image_required",
                        "executor_error",
                        "noisy_machine",
                        "vm_boot_failed",
                        "shutting_down",
                        "other");
    }
}

package dev.baton.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code failed} says why beside the error text (issue 41), and an older runner's word without it still reads. */
class FailedWireTest {
    private final JobUuid job = JobUuid.random();
    private final LeaseId lease = LeaseId.random();

    @Test
    void aFailureCarriesItsCode() {
        String json = Wire.encode(RunnerMessage.Failed.because(
                job, lease, List.of(), "executor error: runc exited 1", FailureCode.EXECUTOR_ERROR));
        assertThat(json).contains("\"event\":\"failed\"").contains("\"failure\":\"executor_error\"");
        RunnerMessage.Failed back = (RunnerMessage.Failed) Wire.decodeRunnerMessage(json);
        assertThat(back.failureCode()).isEqualTo(FailureCode.EXECUTOR_ERROR);
        assertThat(back.runnerLost()).isFalse();
    }

    @Test
    void withoutACodeItIsNullAndAnUnknownOneIsOther() {
        String old = "{\"event\":\"failed\",\"job\":\"" + job + "\",\"lease\":\"" + lease.value()
                + "\",\"error\":\"exit code 3\"}";
        RunnerMessage.Failed f = (RunnerMessage.Failed) Wire.decodeRunnerMessage(old);
        assertThat(f.failure()).isNull();
        assertThat(f.failureCode()).isNull();
        String future = old.replace("\"error\"", "\"failure\":\"gpu_fell_off\",\"error\"");
        assertThat(((RunnerMessage.Failed) Wire.decodeRunnerMessage(future)).failureCode())
                .isEqualTo(FailureCode.OTHER);
    }

    @Test
    void aPreparationFailureOnTheNatsTransportNamesTheDeclineItReplaces() {
        assertThat(FailureCode.ofDecline(DeclineCode.PULL_FAILED)).isEqualTo(FailureCode.PULL_FAILED);
        assertThat(FailureCode.ofDecline(DeclineCode.SHUTTING_DOWN)).isEqualTo(FailureCode.RUNNER_SHUTDOWN);
        for (DeclineCode d : DeclineCode.values())
            assertThat(FailureCode.ofDecline(d)).isNotNull();
    }
}

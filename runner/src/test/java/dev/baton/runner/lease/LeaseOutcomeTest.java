package dev.baton.runner.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.FailureCode;
import dev.baton.protocol.model.IterationResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Complete a NATS-transport execution ends with: the runner channel's rules, in seed 003's words. */
class LeaseOutcomeTest {
    private static IterationResult exit(int code) {
        return new IterationResult(code, "", "", null);
    }

    @Test
    void everyIterationExitingZeroSucceeds() {
        LeaseOutcome o =
                LeaseOutcome.of(ExecutionResult.exited(List.of(exit(0), exit(0))), null, 60, Duration.ofSeconds(25));
        assertThat(o.status()).isEqualTo("SUCCEEDED");
        assertThat(o.exitCode()).isZero();
    }

    @Test
    void aNonZeroExitFailsNamingTheIterationFromZero() {
        LeaseOutcome o =
                LeaseOutcome.of(ExecutionResult.exited(List.of(exit(0), exit(3))), null, 60, Duration.ofSeconds(25));
        assertThat(o.status()).isEqualTo("FAILED");
        assertThat(o.exitCode()).isEqualTo(3);
        assertThat(o.summary()).isEqualTo("iteration 1 exited with code 3");
    }

    @Test
    void theRunnersOwnStopsAndUnaskedStopsAreFailuresNeverSuccess() {
        var stopped = ExecutionResult.stopped(List.of(exit(0)));
        assertThat(LeaseOutcome.of(stopped, LeaseOutcome.Stop.TIMEOUT, 60, Duration.ofSeconds(25))
                        .summary())
                .startsWith("timed out after 60 s");
        assertThat(LeaseOutcome.of(stopped, LeaseOutcome.Stop.SHUTDOWN, 60, Duration.ofSeconds(25))
                        .summary())
                .contains("grace period of 25 s");
        assertThat(LeaseOutcome.of(stopped, null, 60, Duration.ofSeconds(25)).status())
                .isEqualTo("FAILED");
        assertThat(LeaseOutcome.of(ExecutionResult.outOfMemory(List.of(), "137"), null, 60, Duration.ofSeconds(25))
                        .summary())
                .startsWith("out of memory");
        assertThat(LeaseOutcome.notStarted(DeclineCode.PULL_FAILED, "image not found")
                        .summary())
                .isEqualTo("could not start: image not found");
    }

    /** Why it failed goes with the Complete, so the server tells the machine's fault from the job's (issue 41). */
    @Test
    void eachFailureSaysWhyInTheChannelsCodes() {
        assertThat(LeaseOutcome.of(ExecutionResult.exited(List.of(exit(1))), null, 60, Duration.ofSeconds(25))
                        .failure())
                .isEqualTo(FailureCode.EXIT_CODE);
        assertThat(LeaseOutcome.of(ExecutionResult.exited(List.of(exit(0))), null, 60, Duration.ofSeconds(25))
                        .failure())
                .isNull();
        var stopped = ExecutionResult.stopped(List.of(exit(0)));
        assertThat(LeaseOutcome.of(stopped, LeaseOutcome.Stop.TIMEOUT, 60, Duration.ofSeconds(25))
                        .failure())
                .isEqualTo(FailureCode.TIMEOUT);
        assertThat(LeaseOutcome.of(stopped, LeaseOutcome.Stop.SHUTDOWN, 60, Duration.ofSeconds(25))
                        .failure())
                .isEqualTo(FailureCode.RUNNER_SHUTDOWN);
        assertThat(LeaseOutcome.notStarted(DeclineCode.PULL_FAILED, "registry answered 503")
                        .failure())
                .isEqualTo(FailureCode.PULL_FAILED);
        assertThat(LeaseOutcome.notStarted(DeclineCode.UNPACK_FAILED, "disk full")
                        .failure())
                .isEqualTo(FailureCode.UNPACK_FAILED);
        assertThat(LeaseOutcome.notStarted(DeclineCode.IMAGE_REFUSED, "bad digest")
                        .failure())
                .isEqualTo(FailureCode.IMAGE_REFUSED);
    }
}

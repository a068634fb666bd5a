package dev.baton.runner.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.FailureCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.model.IterationResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Cutting a result to the message limit: it always fits, keeps what it can, and says what it dropped. */
class MessageBudgetTest {
    private static final int MIB = 1 << 20;
    private final JobUuid job = JobUuid.random();
    private final LeaseId lease = LeaseId.random();

    private static List<IterationResult> iterations(int n, String stdout) {
        List<IterationResult> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(new IterationResult(0, stdout, "e" + i, Map.of("file", "f" + i)));
        return out;
    }

    @Test
    void aResultWithinTheLimitIsSentAsItIs() {
        var completed = new RunnerMessage.Completed(job, lease, iterations(3, "x".repeat(1000)));
        assertThat(MessageBudget.fit(completed, 16 * MIB)).isSameAs(completed);
    }

    @Test
    void fiftyMebibytesAreCutEvenlyToSixteenKeepingEveryIterationAndTheShortTexts() {
        var completed = new RunnerMessage.Completed(job, lease, iterations(50, "x".repeat(MIB)));
        RunnerMessage.Terminal fitted = MessageBudget.fit(completed, 16 * MIB);
        assertThat(MessageBudget.size(fitted)).isLessThanOrEqualTo(16 * MIB).isGreaterThan(15 * MIB);
        assertThat(fitted).isInstanceOfSatisfying(RunnerMessage.Completed.class, c -> {
            assertThat(c.results()).hasSize(50);
            int length = c.results().getFirst().stdout().length();
            for (int i = 0; i < 50; i++) {
                IterationResult r = c.results().get(i);
                assertThat(r.stdout()).endsWith(MessageBudget.MARKER).hasSize(length);
                assertThat(r.stderr()).isEqualTo("e" + i);
                assertThat(r.output()).containsEntry("file", "f" + i);
            }
        });
    }

    @Test
    void multiByteTextIsCutWithoutSplittingACharacterAndStillFits() {
        String emoji = "\uD83D\uDE00".repeat(300_000); // 4 bytes of UTF-8 per 2 chars
        var failed = RunnerMessage.Failed.because(
                job, lease, List.of(new IterationResult(1, emoji, "", Map.of())), "exit 1", FailureCode.EXIT_CODE);
        RunnerMessage.Terminal fitted = MessageBudget.fit(failed, 200_000);
        assertThat(MessageBudget.size(fitted)).isLessThanOrEqualTo(200_000);
        assertThat(fitted).isInstanceOfSatisfying(RunnerMessage.Failed.class, f -> {
            assertThat(f.error()).isEqualTo("exit 1");
            assertThat(f.failureCode())
                    .as("cut, it still says why it failed (issue 41)")
                    .isEqualTo(FailureCode.EXIT_CODE);
            String body = f.results().getFirst().stdout().replace(MessageBudget.MARKER, "");
            assertThat(body).isNotEmpty().matches("(\uD83D\uDE00)+");
        });
    }

    @Test
    void aResultThatCannotFitEvenCutBecomesAFailedThatSaysWhy() {
        var completed = new RunnerMessage.Completed(job, lease, iterations(100, "x".repeat(1000)));
        RunnerMessage.Terminal fitted = MessageBudget.fit(completed, 1000);
        assertThat(MessageBudget.size(fitted)).isLessThanOrEqualTo(1000);
        assertThat(fitted).isInstanceOfSatisfying(RunnerMessage.Failed.class, f -> {
            assertThat(f.job()).isEqualTo(job);
            assertThat(f.error())
                    .contains("does not fit the channel's message limit of 1000 bytes")
                    .contains("output was dropped");
        });
    }
}

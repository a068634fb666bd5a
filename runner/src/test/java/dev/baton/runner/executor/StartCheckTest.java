package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.machine.Jobs;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The check before start, with real child processes: a decline there runs nothing and leaves nothing behind. */
class StartCheckTest {
    @TempDir
    Path work;

    @Test
    void aDeclineBeforeStartRunsNothingAndCleansUp() throws Exception {
        var executor = new ProcessExecutor(work, OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        Path marker = work.resolve("ran");
        var job = Jobs.claimed(
                Jobs.spec(Architecture.ofHost().orElseThrow(), 1, 1 << 30, false),
                Jobs.command(List.of("touch", marker.toString()), 60, 1, List.of()));
        CompletableFuture<String> declined = new CompletableFuture<>();
        AtomicBoolean preparedOrStarted = new AtomicBoolean();
        Execution e = executor.prepare(job, new ExecutionEvents() {
            @Override
            public void progress(String message) {}

            @Override
            public StartCheck beforeStart() {
                return StartCheck.decline(DeclineCode.NOISY_MACHINE, "SMT is on");
            }

            @Override
            public void prepared() {
                preparedOrStarted.set(true);
            }

            @Override
            public void declined(String reason) {
                declined.completeExceptionally(new AssertionError("no code: " + reason));
            }

            @Override
            public void declined(DeclineCode code, String reason) {
                declined.complete(code.wireName() + ": " + reason);
            }

            @Override
            public void started(Instant at) {
                preparedOrStarted.set(true);
            }

            @Override
            public void finished(ExecutionResult result) {
                declined.completeExceptionally(new AssertionError("finished " + result));
            }
        });
        assertThat(declined.get(10, TimeUnit.SECONDS)).isEqualTo("noisy_machine: SMT is on");
        e.start(); // the declined event came last from the job's thread, which has ended: nothing can run now
        assertThat(preparedOrStarted).isFalse();
        assertThat(marker).doesNotExist();
        assertThat(work.resolve("process").resolve(job.uuid().toString()))
                .as("the job's directory is cleaned up")
                .doesNotExist();
    }
}

package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.value.Architecture;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What each executor tells the machine fingerprint about itself, compared with what its tool prints here. */
@Tag("container")
@Tag("microvm")
class ExecutorVersionTest {
    @TempDir
    Path work;

    private static String firstLine(String... command) {
        String line = ToolVersion.of(List.of(command));
        assumeTrue(line != null, () -> command[0] + " is not installed here");
        return line;
    }

    @Test
    void runcSaysRuncsVersionAndItsPinnedCpus() {
        String expected = firstLine("runc", "--version");
        var runc = new RuncExecutor(
                new RuncExecutor.Options(
                        "runc",
                        work,
                        Architecture.X86_64,
                        true,
                        100_000,
                        256,
                        Optional.of("1"),
                        OutputLimits.DEFAULT,
                        job -> {
                            throw new AssertionError("no job here");
                        }),
                Clock.systemUTC());
        assertThat(runc.version()).isEqualTo(expected).startsWith("runc version");
        assertThat(runc.workloadCpus()).contains("1");
    }

    @Test
    void qemuSaysItsVersion() {
        String expected = firstLine("qemu-system-x86_64", "--version");
        assertThat(QemuMicrovm.onThisHost("qemu-system-x86_64", "tcg").version())
                .isEqualTo(expected)
                .startsWith("QEMU emulator version");
    }

    @Test
    void theProcessExecutorIsTheAgentItself() {
        var process = new ProcessExecutor(work, OutputLimits.DEFAULT, Optional.of("0"), Clock.systemUTC(), true);
        assertThat(process.version()).isNull();
        assertThat(process.workloadCpus()).contains("0");
    }

    @Test
    void aToolThatIsNotThereHasNoVersion() {
        assertThat(ToolVersion.of(List.of(work.resolve("no-such-tool").toString(), "--version")))
                .isNull();
    }
}

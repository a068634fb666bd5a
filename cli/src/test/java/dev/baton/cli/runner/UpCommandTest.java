package dev.baton.cli.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.value.RunnerKey;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Argument handling of {@code baton runner up}; the agent itself is tested in the runner module. */
class UpCommandTest {
    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = new CommandLine(new RunnerCommand());
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void theRunnerWideUnpackCapIsParsedAsASize() {
        UpCommand up = new UpCommand();
        new CommandLine(up).parseArgs("--runner", "r", "--max-unpack-size", "2GiB");
        assertThat(up.unpackCap()).isEqualTo(2L << 30);
        UpCommand none = new UpCommand();
        new CommandLine(none).parseArgs("--runner", "r");
        assertThat(none.unpackCap()).isEqualTo(dev.baton.runner.executor.RuncExecutor.Options.NO_UNPACK_CAP);
        UpCommand bad = new UpCommand();
        new CommandLine(bad).parseArgs("--runner", "r", "--max-unpack-size", "lots");
        org.assertj.core.api.Assertions.assertThatThrownBy(bad::unpackCap).hasMessageContaining("is not a size");
    }

    @Test
    void aKeyIsRequired() {
        if (System.getenv("BATON_RUNNER_KEY") != null) return; // the environment provides one
        assertThat(run("up", "--server", "http://127.0.0.1:1", "--runner", "r")).isEqualTo(2);
        assertThat(err.toString()).contains("a runner key is required");
    }

    @Test
    void aMalformedKeyFileIsRejectedWithoutEchoingIt() throws Exception {
        Path file = Files.writeString(dir.resolve("key"), "baton_runner_not-really-secret-value\n");
        assertThat(run("up", "--server", "http://127.0.0.1:1", "--runner", "r", "--key-file", file.toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("is not a runner key").doesNotContain("not-really-secret-value");
    }

    @Test
    void aKeyFileReadableByOthersIsWarnedAbout() throws Exception {
        Path file = Files.writeString(dir.resolve("key"), RunnerKey.generate().reveal());
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        run("up", "--server", "http://h", "--runner", "r", "--key-file", file.toString(), "--slots", "0");
        assertThat(err.toString()).contains("readable by other users");
    }

    @Test
    void theProcessExecutorNeedsExplicitPermission() throws Exception {
        Path file = Files.writeString(dir.resolve("key"), RunnerKey.generate().reveal());
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        int status = run(
                "up",
                "--server",
                "http://127.0.0.1:1",
                "--runner",
                "r",
                "--key-file",
                file.toString(),
                "--executor",
                "process",
                "--work-dir",
                dir.resolve("work").toString(),
                "--no-cpu-pinning");
        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("--allow-no-sandbox");
    }

    @Test
    void badValuesAreRejected() throws Exception {
        Path file = Files.writeString(dir.resolve("key"), RunnerKey.generate().reveal());
        assertThat(run("up", "--server", "http://h", "--runner", "r", "--key-file", file.toString(), "--slots", "0"))
                .isEqualTo(2);
        assertThat(run("up", "--server", "ftp://h", "--runner", "r", "--key-file", file.toString()))
                .isEqualTo(2);
        assertThat(run(
                        "up",
                        "--server",
                        "http://h",
                        "--runner",
                        "r",
                        "--key-file",
                        file.toString(),
                        "--poll-timeout",
                        "901"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--slots").contains("http(s)").contains("--poll-timeout");
    }

    @Test
    void durations() {
        var c = new UpCommand.DurationConverter();
        assertThat(c.convert("25s")).isEqualTo(Duration.ofSeconds(25));
        assertThat(c.convert("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(c.convert("7")).isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void cpuPlanKeepsCpuZeroForTheAgentByDefault() {
        assertThat(CpuPlan.of(1, false, null, null)).isEqualTo(new CpuPlan(Optional.empty(), Optional.empty()));
        assertThat(CpuPlan.of(2, false, null, null)).isEqualTo(new CpuPlan(Optional.of("0"), Optional.of("1")));
        assertThat(CpuPlan.of(8, false, null, null)).isEqualTo(new CpuPlan(Optional.of("0"), Optional.of("1-7")));
        assertThat(CpuPlan.of(8, false, "3", "4-7")).isEqualTo(new CpuPlan(Optional.of("3"), Optional.of("4-7")));
        assertThat(CpuPlan.of(8, true, "3", "4-7")).isEqualTo(new CpuPlan(Optional.empty(), Optional.empty()));
    }
}

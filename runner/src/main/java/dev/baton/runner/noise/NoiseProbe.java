package dev.baton.runner.noise;

import dev.baton.protocol.model.NoiseFigure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the noise calibration ({@link NoiseMain}) in a child JVM of the agent's own Java and class
 * path, pinned with {@code taskset} to the CPUs jobs run on when there are such CPUs (as the
 * process executor pins a job), and reads its figures. The agent runs it while idle, before it
 * takes a job (decision 0052). Empty, logged, when the child fails or takes longer than the
 * timeout: a runner without a calibration still runs jobs.
 */
public final class NoiseProbe {
    private static final Logger log = LoggerFactory.getLogger(NoiseProbe.class);

    private final Path scratch;
    private final int repetitions;
    private final Optional<String> cpus;
    private final long timeoutSeconds;

    /**
     * @param scratch a directory for the file workload's one file
     * @param cpus the kernel cpu list jobs are pinned to, or empty to run unpinned
     */
    public NoiseProbe(Path scratch, int repetitions, Optional<String> cpus, long timeoutSeconds) {
        if (repetitions < 2) throw new IllegalArgumentException("at least 2 repetitions, not " + repetitions);
        this.scratch = scratch;
        this.repetitions = repetitions;
        this.cpus = cpus;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** The command that runs the calibration: this JVM's java on this JVM's class path, small heap. */
    List<String> command() {
        List<String> cmd = new ArrayList<>();
        if (cpus.isPresent() && Files.isExecutable(Path.of("/usr/bin/taskset"))) {
            cmd.addAll(List.of("/usr/bin/taskset", "-c", cpus.get()));
        }
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(
                java,
                "-Xmx96m",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                NoiseMain.class.getName(),
                scratch.toString(),
                Integer.toString(repetitions)));
        return cmd;
    }

    /** Runs the calibration and returns its figures; empty when it could not. */
    public Optional<List<NoiseFigure>> measure() {
        Process p = null;
        try {
            Files.createDirectories(scratch);
            // To a file, not a pipe: a child that hangs is then ended by the timeout, not waited on by a read.
            Path out = scratch.resolve("baton-noise.out");
            p = new ProcessBuilder(command())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .redirectOutput(out.toFile())
                    .start();
            p.getOutputStream().close();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS) || p.exitValue() != 0) {
                log.warn(
                        "noise calibration failed ({}); this runner reports no noise",
                        p.isAlive() ? "timed out" : "exit " + p.exitValue());
                return Optional.empty();
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            Files.deleteIfExists(out);
            return Optional.of(parse(text));
        } catch (IOException | RuntimeException e) {
            log.warn("noise calibration could not run ({}); this runner reports no noise", e.toString());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            if (p != null) p.destroyForcibly();
        }
    }

    /** The child's lines, {@code workload repetitions mean_nanos cv}, as figures. */
    static List<NoiseFigure> parse(String out) {
        List<NoiseFigure> figures = new ArrayList<>();
        for (String line : out.strip().split("\n")) {
            String[] f = line.strip().split(" ");
            if (f.length != 4) throw new IllegalArgumentException("noise calibration: unexpected line '" + line + "'");
            figures.add(
                    new NoiseFigure(f[0], Integer.parseInt(f[1]), Double.parseDouble(f[2]), Double.parseDouble(f[3])));
        }
        return figures;
    }
}

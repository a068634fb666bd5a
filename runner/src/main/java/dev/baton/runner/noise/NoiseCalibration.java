package dev.baton.runner.noise;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * How noisy this machine is (issue 45, "Each runner's noise"; decision 0052): three fixed
 * workloads — a CPU loop, a memory walk, a small file write-and-read — each timed over many
 * repetitions, and each figure's coefficient of variation (standard deviation over mean of the
 * repetitions' times). The same machine gives about the same CVs run after run; a CV that rose
 * says something new competes for the CPU, the memory bus or the disk. The workloads are fixed
 * (same work, same seed) so CVs are comparable across runs of one machine; they are not meant to
 * compare two machines' speeds. The clock is injected so the statistics are tested without time.
 *
 * <p>Built: the workload and its figures. Not built yet: asking a runner for it, storing it, the
 * spec's maximum noise and the flag (decision 0052 says how they are meant to work).
 */
public final class NoiseCalibration {
    /** One workload's figure: its repetitions, their mean time and their coefficient of variation. */
    public record Figure(String workload, int repetitions, double meanNanos, double cv) {}

    /** How much work: repetitions per workload and the size of each one. */
    public record Size(int repetitions, int cpuIterations, int memoryBytes, int fileBytes) {
        public static final Size DEFAULT = new Size(200, 2_000_000, 32 << 20, 256 << 10);

        public Size {
            if (repetitions < 2) throw new IllegalArgumentException("at least 2 repetitions, not " + repetitions);
            if (cpuIterations < 1 || memoryBytes < 4096 || fileBytes < 1)
                throw new IllegalArgumentException("workload sizes must be positive (memory at least 4096 bytes)");
        }
    }

    private final LongSupplier nanoTime;
    private final Path scratch;
    private final Size size;
    /** Keeps the JIT from removing the loops: every result lands here. */
    private long sink;

    /** @param scratch a directory for the file workload's one file (removed afterwards) */
    public NoiseCalibration(LongSupplier nanoTime, Path scratch, Size size) {
        this.nanoTime = nanoTime;
        this.scratch = scratch;
        this.size = size;
    }

    /** Runs the three workloads, one after the other, and returns their figures in that order. */
    public List<Figure> run() {
        return List.of(time("cpu", this::cpu), time("memory", memoryWalk()), time("file", fileLoop()));
    }

    /** The coefficient of variation of {@code samples}: sample standard deviation over mean (0 when the mean is 0). */
    public static double cv(long[] samples) {
        if (samples.length < 2) throw new IllegalArgumentException("a CV needs at least 2 samples");
        double mean = mean(samples);
        if (mean == 0) return 0;
        double squares = 0;
        for (long s : samples) squares += (s - mean) * (s - mean);
        return Math.sqrt(squares / (samples.length - 1)) / mean;
    }

    static double mean(long[] samples) {
        double sum = 0;
        for (long s : samples) sum += s;
        return sum / samples.length;
    }

    private Figure time(String name, Runnable workload) {
        workload.run(); // once untimed: first-touch page faults, class loading, the first compilation
        long[] samples = new long[size.repetitions()];
        for (int i = 0; i < samples.length; i++) {
            long t0 = nanoTime.getAsLong();
            workload.run();
            samples[i] = nanoTime.getAsLong() - t0;
        }
        return new Figure(name, samples.length, mean(samples), cv(samples));
    }

    /** A fixed integer loop (xorshift): no memory traffic, only the core. */
    private void cpu() {
        long x = 88172645463325252L;
        for (int i = 0; i < size.cpuIterations(); i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        sink += x;
    }

    /** A dependent walk through a random cycle over the buffer: every step a cache miss, so the memory bus's share. */
    private Runnable memoryWalk() {
        int slots = size.memoryBytes() / 64; // one slot per cache line
        int[] next = new int[slots * 16];
        int[] order = new int[slots];
        for (int i = 0; i < slots; i++) order[i] = i;
        SplittableRandom random = new SplittableRandom(42);
        for (int i = slots - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < slots; i++) next[order[i] * 16] = order[(i + 1) % slots] * 16;
        return () -> {
            int p = 0;
            for (int i = 0; i < slots; i++) p = next[p];
            sink += p;
        };
    }

    /** Writes the file, forces it to the disk, reads it back: the disk's and the page cache's share. */
    private Runnable fileLoop() {
        byte[] bytes = new byte[size.fileBytes()];
        new SplittableRandom(7).nextBytes(bytes);
        Path file = scratch.resolve("baton-noise.bin");
        return () -> {
            try {
                try (FileChannel ch = FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
                    ByteBuffer b = ByteBuffer.wrap(bytes);
                    while (b.hasRemaining()) ch.write(b);
                    ch.force(false);
                }
                sink += Files.readAllBytes(file).length;
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException("noise calibration: the file workload failed in " + scratch, e);
            }
        };
    }

    /** What the loops computed (read so the JIT keeps them). */
    long sink() {
        return sink;
    }
}

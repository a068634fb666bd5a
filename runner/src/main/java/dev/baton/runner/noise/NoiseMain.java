package dev.baton.runner.noise;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The calibration in a process of its own (run by {@link NoiseProbe}): {@code NoiseMain SCRATCH
 * REPETITIONS} prints one line per figure, {@code workload repetitions mean_nanos cv}. A process
 * of its own so that the agent's heap never grows by the memory walk's 32 MiB (the agent's resident
 * set is a target of its own, decision 0051), and so it can be pinned to the benchmark CPUs as a
 * job is.
 */
public final class NoiseMain {
    private NoiseMain() {}

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: NoiseMain SCRATCH_DIR REPETITIONS");
            System.exit(2);
        }
        NoiseCalibration.Size d = NoiseCalibration.Size.DEFAULT;
        var size =
                new NoiseCalibration.Size(Integer.parseInt(args[1]), d.cpuIterations(), d.memoryBytes(), d.fileBytes());
        for (NoiseCalibration.Figure f : new NoiseCalibration(System::nanoTime, Path.of(args[0]), size).run()) {
            System.out.println(String.format(
                    Locale.ROOT, "%s %d %.1f %.9f", f.workload(), f.repetitions(), f.meanNanos(), f.cv()));
        }
    }
}

package dev.baton.protocol.model;

import java.util.List;
import java.util.Set;

/**
 * One figure of a runner's noise calibration (decision 0052): the workload ({@code cpu},
 * {@code memory} or {@code file}), how many timed repetitions, their mean time and their
 * coefficient of variation (sample standard deviation over mean). The CV is the noise.
 */
public record NoiseFigure(String workload, int repetitions, double meanNanos, double cv) {
    /** The workloads a calibration has, each once. */
    public static final List<String> WORKLOADS = List.of("cpu", "memory", "file");

    /** Beyond this a CV is not a measurement but a broken clock or workload. */
    public static final double MAX_CV = 100;

    public NoiseFigure {
        if (workload == null || !Set.copyOf(WORKLOADS).contains(workload))
            throw new IllegalArgumentException(
                    "noise figure: workload must be one of " + WORKLOADS + ", got " + workload);
        if (repetitions < 2 || repetitions > 1_000_000)
            throw new IllegalArgumentException("noise figure: repetitions must be between 2 and 1000000");
        if (!(cv >= 0 && cv <= MAX_CV))
            throw new IllegalArgumentException("noise figure: cv must be between 0 and " + MAX_CV + ", got " + cv);
        if (!(meanNanos >= 0) || Double.isInfinite(meanNanos))
            throw new IllegalArgumentException("noise figure: mean_nanos must be a finite number >= 0");
    }
}

package dev.baton.store;

import java.time.Instant;
import java.util.stream.DoubleStream;

/**
 * One noise calibration of a runner (decision 0052): when its agent measured it, each workload's
 * coefficient of variation (null: not run), the repetitions per workload and the machine's
 * fingerprint then (the JSON the runner sent, or null).
 */
public record NoiseReading(
        Instant measured, Double cpuCv, Double memoryCv, Double fileCv, int repetitions, String fingerprint) {
    /** The largest of its CVs: the runner's noise in one number (0 when none was measured). */
    public double maxCv() {
        return DoubleStream.of(value(cpuCv), value(memoryCv), value(fileCv))
                .max()
                .orElse(0);
    }

    private static double value(Double cv) {
        return cv == null ? 0 : cv;
    }
}

package dev.baton.api;

import dev.baton.store.NoiseFlag;
import dev.baton.store.NoiseReading;
import java.time.Instant;
import java.util.List;

/**
 * A runner's noise as the API shows it (decision 0052): its latest calibration's coefficient of
 * variation per workload, the largest of them ({@code cv}, the one number a spec's limit would
 * compare), how many calibrations are stored, and {@code noisy} when the latest rose past the
 * runner's own history ({@link NoiseFlag}). Null for a runner that never reported one.
 */
public record NoiseView(
        Instant measured,
        double cv,
        Double cpuCv,
        Double memoryCv,
        Double fileCv,
        int repetitions,
        int calibrations,
        boolean noisy) {
    /** How many calibrations are read to show one runner's noise: the latest and its history. */
    static final int READ = NoiseFlag.HISTORY + 1;

    /** @param newestFirst the runner's calibrations, newest first, at most {@link #READ} */
    static NoiseView of(List<NoiseReading> newestFirst) {
        if (newestFirst == null || newestFirst.isEmpty()) return null;
        NoiseReading latest = newestFirst.get(0);
        return new NoiseView(
                latest.measured(),
                latest.maxCv(),
                latest.cpuCv(),
                latest.memoryCv(),
                latest.fileCv(),
                latest.repetitions(),
                newestFirst.size(),
                NoiseFlag.noisy(newestFirst));
    }
}

package dev.baton.store;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * Whether a runner's noise rose past its own history (decision 0052): its latest CV of any
 * workload is above both 1.5 times the median of the calibrations before it (at most
 * {@link #HISTORY}) and that median plus 3 median absolute deviations. Both, so that a machine
 * whose CV wanders (large deviation) is not flagged for its usual wander, and one whose CV is
 * steady near zero is not flagged for a rise too small to matter. Fewer than {@link #MIN_HISTORY}
 * earlier calibrations judge nothing: the machine's usual noise is not known yet.
 */
public final class NoiseFlag {
    /** How many calibrations before the latest one its history holds. */
    public static final int HISTORY = 10;

    public static final int MIN_HISTORY = 3;

    private static final List<Function<NoiseReading, Double>> FIGURES =
            List.of(NoiseReading::cpuCv, NoiseReading::memoryCv, NoiseReading::fileCv);

    private NoiseFlag() {}

    /** @param newestFirst the runner's calibrations, newest first (more than {@code HISTORY + 1} are ignored) */
    public static boolean noisy(List<NoiseReading> newestFirst) {
        if (newestFirst.size() < MIN_HISTORY + 1) return false;
        NoiseReading latest = newestFirst.get(0);
        List<NoiseReading> before = newestFirst.subList(1, Math.min(newestFirst.size(), HISTORY + 1));
        for (Function<NoiseReading, Double> figure : FIGURES) {
            Double now = figure.apply(latest);
            double[] past = before.stream()
                    .map(figure)
                    .filter(v -> v != null)
                    .mapToDouble(Double::doubleValue)
                    .toArray();
            if (now == null || past.length < MIN_HISTORY) continue;
            double median = median(past);
            double mad =
                    median(Arrays.stream(past).map(v -> Math.abs(v - median)).toArray());
            if (now > 1.5 * median && now > median + 3 * mad) return true;
        }
        return false;
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}

package dev.baton.console;

import java.util.Locale;

/**
 * One runner on the console's noise page (issue 45, decisions 0052 and 0062): its latest
 * calibration's coefficient of variation per workload (null: not run, or no calibration at all),
 * when it was measured, how many calibrations the flag read, and whether it is flagged.
 */
public record NoiseRow(
        String slug,
        String name,
        boolean archived,
        String measured,
        Double cpuCv,
        Double memoryCv,
        Double fileCv,
        Double cv,
        int repetitions,
        int calibrations,
        boolean noisy) {

    public boolean calibrated() {
        return measured != null;
    }

    /** A CV as the CLI shows it: a percentage with two decimals, or a dash. */
    public static String percent(Double cv) {
        return cv == null ? "—" : String.format(Locale.ROOT, "%.2f%%", 100 * cv);
    }
}

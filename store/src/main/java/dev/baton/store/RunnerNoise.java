package dev.baton.store;

import java.util.List;
import java.util.Map;

/**
 * The store's part for runners' noise (issue 45, decision 0052): each calibration a runner's agent
 * reported, kept as a history per runner, newest first when read.
 */
public interface RunnerNoise {
    /** Stores a calibration; false when the runner already has one measured at that instant (a resend). */
    boolean recordNoise(long runnerId, NoiseReading reading);

    /** The runner's calibrations, newest first, at most {@code limit}. */
    List<NoiseReading> noiseHistory(long runnerId, int limit);

    /** Every runner's calibrations (those with any), newest first, at most {@code perRunner} each. */
    Map<Long, List<NoiseReading>> noiseHistories(int perRunner);
}

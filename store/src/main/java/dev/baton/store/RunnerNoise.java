package dev.baton.store;

import java.time.Instant;
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

    /**
     * Whether the runner holds an attempt that has not ended (claimed, preparing or running): a
     * runner that does is busy, and is not asked to calibrate (decision 0062).
     */
    boolean holdsAttempt(long runnerId);

    /**
     * Takes or renews the lease of the calibration schedule for {@code node} until {@code until}
     * (decision 0062): true when this node holds it now, false when another node holds one that has
     * not expired. One named row beside the pool scaler's (the same table, V30), so one node across
     * the cluster asks runners to calibrate.
     */
    boolean takeCalibrationLease(String node, Instant now, Instant until);
}

package dev.baton.protocol.model;

import dev.baton.protocol.value.ImageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A paired run (issue 45): the job runs the baseline ({@code baselineCmd}, side A) and the
 * candidate (the job's own entrypoint and cmd, side B) alternately on one runner under one
 * lease, one pair after the other. Iteration {@code 2p} and {@code 2p + 1} are pair {@code p};
 * which side runs first in a pair is drawn from {@code seed} ({@link #baselineFirst}), so the
 * server and the runner agree on it without a word on the wire and a trend in the machine (warming
 * up, a neighbour starting) cannot favour one side.
 *
 * <p>{@code pairs} is the number of pairs for a fixed design, and the most pairs with
 * {@code untilSignificant}: then the runner stops earlier, after a pair whose metrics are all
 * decided (docs/decisions/0050-paired-runs.md), or when {@code budget} seconds of running have
 * passed. {@code adapter} and {@code resultsFile} are the report's, copied here so that the runner
 * can read each side's output for that decision; the server reads it again for the report.
 * Baton's extension of the job config (docs/protocol.md); absent on every other job.
 *
 * <p>{@code baselineImage} (issue 45, optional) runs the baseline in an image of its own: the
 * baseline side is then the job as it would run in that image, {@code baselineCmd} (optional with
 * an image) in place of the job's cmd. Without it the baseline runs in the job's image (or, on
 * the process executor, as a plain command). At least one of the two is present.
 */
public record PairedConfig(
        List<String> baselineCmd,
        int pairs,
        long seed,
        Boolean untilSignificant,
        Integer budget,
        Double minEffect,
        String adapter,
        String resultsFile,
        ImageDigest baselineImage) {

    /** The fewest and most pairs a run may ask for (each pair is two iterations of the result). */
    public static final int MIN_PAIRS = 2;

    public static final int MAX_PAIRS = 200;
    /** The default minimum effect, a fraction of the baseline's mean (1 %). */
    public static final double DEFAULT_MIN_EFFECT = 0.01;

    public PairedConfig {
        baselineCmd = baselineCmd == null ? null : Collections.unmodifiableList(new ArrayList<>(baselineCmd));
    }

    /** A baseline that is a command in the job's own image (or on the process executor, a command). */
    public PairedConfig(
            List<String> baselineCmd,
            int pairs,
            long seed,
            Boolean untilSignificant,
            Integer budget,
            Double minEffect,
            String adapter,
            String resultsFile) {
        this(baselineCmd, pairs, seed, untilSignificant, budget, minEffect, adapter, resultsFile, null);
    }

    /** Which side runs an iteration. */
    public enum Side {
        BASELINE,
        CANDIDATE;

        public String wireName() {
            return this == BASELINE ? "baseline" : "candidate";
        }
    }

    public boolean sequential() {
        return Boolean.TRUE.equals(untilSignificant);
    }

    public double minEffectOrDefault() {
        return minEffect == null ? DEFAULT_MIN_EFFECT : minEffect;
    }

    /** Iterations a job of at most {@code pairs} pairs runs. */
    public int iterations() {
        return 2 * pairs;
    }

    /** Whether pair {@code pair} (from 0) runs the baseline first; a pure function of the seed. */
    public boolean baselineFirst(int pair) {
        return new SplittableRandom(seed + 0x9E3779B97F4A7C15L * (pair + 1)).nextBoolean();
    }

    /** The side iteration {@code iteration} (from 0) runs. */
    public Side side(int iteration) {
        boolean first = iteration % 2 == 0;
        return first == baselineFirst(iteration / 2) ? Side.BASELINE : Side.CANDIDATE;
    }
}

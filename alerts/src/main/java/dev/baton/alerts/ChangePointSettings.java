package dev.baton.alerts;

/**
 * How {@link ChangePoints} decides that a split is a change point (docs/alerts.md, "Change
 * points"; decision 0061). {@link #DEFAULT} is what every {@code change_point} threshold uses;
 * {@link #PLAIN} is Otava's test alone, kept to measure against.
 *
 * @param maxP the largest p-value of Student's t-test between the two segments
 * @param perSplit multiply the p-value by the number of split positions E-divisive chose among
 *     (Bonferroni), as the split tested is the best of them
 * @param winsorize clip each segment at its median ± this many robust deviations (1.4826 × the
 *     median absolute deviation, pooled over both segments) before the test; infinite: no clipping
 * @param minEffect the least change in pooled standard deviations (0: none)
 * @param persist the medians of both segments must show the change too: a lone outlier moves a
 *     short segment's mean but not its median
 * @param followMoves a revealed change point found again up to {@link ChangePoints#SAME_WITHIN}
 *     away is known where it is now, so a change point that moves step by step is one alert
 * @param maxAge a change point is revealed only while its new level has at most this many points
 *     after its first (Integer.MAX_VALUE: always)
 * @param minSegment the fewest points of a segment ({@link ChangePoints#MIN_SEGMENT})
 * @param confirm a change point found is revealed only when the next this many points still find
 *     it (within {@link ChangePoints#SAME_WITHIN}); 0: at once
 * @param positionsPower with {@code perSplit}, the p-value is multiplied by the number of split
 *     positions raised to this power: 1 is Bonferroni; less counts the positions as fewer
 *     independent tests than they are (neighbouring splits test nearly the same thing)
 * @param trendStep the step fitted on top of a straight line common to both segments (least
 *     squares: level + slope × index + step after the split) must go the same way as the change
 *     and be at least this share of the least relative change: a series that only trends (a
 *     population, a balance) changes its mean from segment to segment without a step (0: no such check)
 * @param earlyQuantile the early warning ({@link ChangePoints.Online}): when the newest
 *     {@link ChangePoints#MIN_SEGMENT} points all lie beyond this quantile of the segment before
 *     them (each above it, or each below the mirrored one), a change at the first of them is
 *     tested without the correction over split positions, as it is one fixed split per arrival
 *     (0: no early warning)
 * @param splitWinsorize the top-down split also proposes a window's best split when its t-test
 *     fails on the points as they are but passes with the two sides clipped at their medians ±
 *     this many robust deviations (as {@code winsorize}), provided at most
 *     {@link ChangePoints#SPLIT_EXTREMES} of the window's points lie beyond them; the merge still
 *     decides on the points as they are (infinite: the split tests the points as they are)
 * @param dependence widen the t-test's standard error by √((1 + ρ) / (1 − ρ)), ρ the lag-1
 *     autocorrelation of the residuals within the two segments (when positive): points that
 *     follow their neighbours are fewer independent points than points (measured, not adopted:
 *     decision 0077)
 * @param smallCuts the merge keeps every split that passes its checks with a least change of 0
 *     (the corrected p-value, the medians, a step on a common trend going the same way); those
 *     below the least change are cuts between segments, not change points: they are never
 *     reported or alerted, but the change points beside them are measured against the segments
 *     they bound, not against a segment that spans two levels (decision 0077)
 */
public record ChangePointSettings(
        double maxP,
        boolean perSplit,
        double winsorize,
        double minEffect,
        boolean persist,
        boolean followMoves,
        int maxAge,
        int minSegment,
        int confirm,
        double positionsPower,
        double trendStep,
        double earlyQuantile,
        double splitWinsorize,
        boolean dependence,
        boolean smallCuts) {

    /** Otava's test: p below 0.001, nothing else (besides the least relative change). */
    public static final ChangePointSettings PLAIN = new ChangePointSettings(
            ChangePoints.MAX_P_VALUE,
            false,
            Double.POSITIVE_INFINITY,
            0,
            false,
            false,
            Integer.MAX_VALUE,
            ChangePoints.MIN_SEGMENT,
            0,
            1,
            0,
            0,
            Double.POSITIVE_INFINITY,
            false,
            false);

    /**
     * Baton's defaults (decisions 0061, 0067, 0071, 0075 and 0077): Bonferroni over the split
     * positions, the change held on the medians, a step on top of a common linear trend of at least the least
     * change (a series that only trends is no change point), and the early warning of the newest
     * three points at the 0.975 quantile (a clear step is revealed at its third point), and
     * (decision 0075) the top-down split proposing on points clipped at 3 robust deviations when
     * one extreme point hid a step from it, and (decision 0077) significant changes below the
     * least change kept as cuts between segments. The merge's test is not winsorized: clipping
     * each segment around its own median also pulls a point of the old level that a misplaced split
     * puts into the new segment towards it, and so reveals changes one point early at the wrong
     * commit.
     */
    public static final ChangePointSettings DEFAULT = PLAIN.withPerSplit(true)
            .withPersist(true)
            .withTrendStep(1)
            .withEarlyQuantile(0.975)
            .withSplitWinsorize(3)
            .withSmallCuts(true);

    public ChangePointSettings withMaxP(double p) {
        return with(c -> c.maxP = p);
    }

    public ChangePointSettings withPerSplit(boolean b) {
        return with(c -> c.perSplit = b);
    }

    public ChangePointSettings withWinsorize(double k) {
        return with(c -> c.winsorize = k);
    }

    public ChangePointSettings withMinEffect(double d) {
        return with(c -> c.minEffect = d);
    }

    public ChangePointSettings withPersist(boolean b) {
        return with(c -> c.persist = b);
    }

    public ChangePointSettings withFollowMoves(boolean b) {
        return with(c -> c.followMoves = b);
    }

    public ChangePointSettings withMaxAge(int points) {
        return with(c -> c.maxAge = points);
    }

    public ChangePointSettings withMinSegment(int points) {
        return with(c -> c.minSegment = points);
    }

    public ChangePointSettings withConfirm(int points) {
        return with(c -> c.confirm = points);
    }

    public ChangePointSettings withPositionsPower(double power) {
        return with(c -> c.positionsPower = power);
    }

    public ChangePointSettings withTrendStep(double share) {
        return with(c -> c.trendStep = share);
    }

    public ChangePointSettings withEarlyQuantile(double q) {
        return with(c -> c.earlyQuantile = q);
    }

    public ChangePointSettings withSplitWinsorize(double k) {
        return with(c -> c.splitWinsorize = k);
    }

    public ChangePointSettings withDependence(boolean b) {
        return with(c -> c.dependence = b);
    }

    public ChangePointSettings withSmallCuts(boolean b) {
        return with(c -> c.smallCuts = b);
    }

    private ChangePointSettings with(java.util.function.Consumer<Copy> change) {
        Copy c = new Copy(this);
        change.accept(c);
        return c.settings();
    }

    /** The settings as fields, so that each {@code with…} changes one and copies the rest. */
    private static final class Copy {
        private double maxP;
        private boolean perSplit;
        private double winsorize;
        private double minEffect;
        private boolean persist;
        private boolean followMoves;
        private int maxAge;
        private int minSegment;
        private int confirm;
        private double positionsPower;
        private double trendStep;
        private double earlyQuantile;
        private double splitWinsorize;
        private boolean dependence;
        private boolean smallCuts;

        Copy(ChangePointSettings s) {
            maxP = s.maxP;
            perSplit = s.perSplit;
            winsorize = s.winsorize;
            minEffect = s.minEffect;
            persist = s.persist;
            followMoves = s.followMoves;
            maxAge = s.maxAge;
            minSegment = s.minSegment;
            confirm = s.confirm;
            positionsPower = s.positionsPower;
            trendStep = s.trendStep;
            earlyQuantile = s.earlyQuantile;
            splitWinsorize = s.splitWinsorize;
            dependence = s.dependence;
            smallCuts = s.smallCuts;
        }

        ChangePointSettings settings() {
            return new ChangePointSettings(
                    maxP,
                    perSplit,
                    winsorize,
                    minEffect,
                    persist,
                    followMoves,
                    maxAge,
                    minSegment,
                    confirm,
                    positionsPower,
                    trendStep,
                    earlyQuantile,
                    splitWinsorize,
                    dependence,
                    smallCuts);
        }
    }
}

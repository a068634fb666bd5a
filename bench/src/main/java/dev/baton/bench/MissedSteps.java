package dev.baton.bench;

import dev.baton.alerts.ChangePointSettings;
import dev.baton.alerts.ChangePoints;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Why {@link ChangePoints.Online} misses the steps it is meant to find (issue 44's recall,
 * decision 0075): {@code bench/run changepoints --variants missed} (or {@code missed-K}: with the
 * split proposing on points clipped at K). Each step of at least two noise deviations and at least
 * the least change (5 %) that no flag matches is listed with its size, the series' noise kind, the
 * points before and after it (to the series' ends or the neighbouring steps), the checks on its
 * true segments (from the step before to the step after), and one cause, the first that applies:
 * <ul>
 *   <li>"misplaced": a flag 6–20 points from it (found at the wrong index);
 *   <li>"held, not revealed": a change point within 5 points of it was held at some arrival but
 *       never alerted;
 *   <li>"never proposed: found when the split clips" (only when the settings' split does not
 *       clip): the whole series' detection on its true segments finds it when the top-down split
 *       also proposes on points clipped at 3 robust deviations (decision 0075's default): an
 *       extreme point in each window of 50 around it lifts the window's deviation, the split is
 *       never proposed, so the merge never tests it;
 *   <li>"a neighbour not held": found on its true segments, but a neighbouring step is not held
 *       (below the least change or not significant), so its segment spans two levels;
 *   <li>else the checks that fail on its true segments: "p" (Student's t-test's p-value × the
 *       positions, m − 5, at least 0.001), "least change" (the means differ by less than 5 %),
 *       "trend" (the step on a common straight line is under 5 % or the other way), "medians";
 *       or, when none fails, "never proposed: the merge's checks pass" (the top-down split never
 *       proposes it, clipped or not).
 * </ul>
 */
final class MissedSteps {
    private MissedSteps() {}

    /** The merge's checks that fail on a step's true segments. */
    static List<String> failing(ChangePoints.SplitCheck c, double maxP, double least) {
        List<String> out = new ArrayList<>();
        if (!(c.point().pValue() * c.positions() < maxP)) out.add("p");
        if (!(Math.abs(c.point().change()) >= least)) out.add("least change");
        if (!(c.trendStep() * Math.signum(c.point().change()) >= least)) out.add("trend");
        if (!c.mediansHold()) out.add("medians");
        return out;
    }

    static String describe(ChangePoints.SplitCheck c) {
        double p = c.point().pValue();
        return String.format(
                "means %+.1f %%, medians %+.1f %%, p %.1e × %d positions = %.1e, step on a trend %+.1f %%",
                100 * c.point().change(),
                100 * c.medianChange(),
                p,
                c.positions(),
                p * c.positions(),
                100 * c.trendStep());
    }

    static void report(ChangePointSettings settings, List<ChangePointBench.Synthetic.Series> synthetic) {
        Map<String, Integer> causes = new LinkedHashMap<>();
        int reachable = 0;
        int missed = 0;
        for (int s = 0; s < synthetic.size(); s++) {
            ChangePointBench.Synthetic.Series series = synthetic.get(s);
            double[] x = series.values();
            ChangePoints.Online online = new ChangePoints.Online(settings, 0.05, 0.05);
            int[] flagged = new int[x.length];
            List<List<Integer>> held = new ArrayList<>();
            for (int i = 0; i < x.length; i++) {
                ChangePoints.ChangePoint c = online.add(x[i]);
                flagged[i] = c == null ? -1 : c.index();
                held.add(online.changePoints().stream()
                        .map(ChangePoints.ChangePoint::index)
                        .toList());
            }
            ChangePointBench.Scores.Match m = ChangePointBench.Scores.match(series.steps(), flagged);
            int[] steps = series.steps();
            for (int k = 0; k < steps.length; k++) {
                double size = series.sizes()[k];
                if (Math.abs(size) < 2 * series.noise() || Math.abs(size) < ChangePoints.MIN_CHANGE) continue;
                reachable++;
                if (m.delays()[k] >= 0) continue;
                missed++;
                int step = steps[k];
                int from = k == 0 ? 0 : steps[k - 1];
                int to = k == steps.length - 1 ? x.length : steps[k + 1];
                ChangePoints.SplitCheck split = ChangePoints.check(x, from, step, to);
                String cause = cause(x, step, from, to, flagged, held, settings, split);
                causes.merge(cause.split(":")[0], 1, Integer::sum);
                System.out.printf(
                        "    series %d, step at %d: %+.1f %% = %.1fσ (noise %.1f %%, %s), %d points before, %d after (%s); %s; true segments: %s; flags %s%n",
                        s,
                        step,
                        100 * size,
                        Math.abs(size) / series.noise(),
                        100 * series.noise(),
                        kind(series, step),
                        step - from,
                        to - step,
                        to == x.length ? "to the end" : "to the next step",
                        cause,
                        describe(split),
                        flagsNear(flagged, step));
            }
        }
        System.out.printf("steps ≥ 2σ and ≥ 5 %%: %d, missed %d; by cause %s%n", reachable, missed, causes);
    }

    private static String cause(
            double[] x,
            int step,
            int from,
            int to,
            int[] flagged,
            List<List<Integer>> held,
            ChangePointSettings settings,
            ChangePoints.SplitCheck split) {
        for (int f : flagged) if (f >= 0 && Math.abs(f - step) <= 20) return "misplaced: flagged at " + f;
        for (int i = 0; i < held.size(); i++)
            for (int c : held.get(i))
                if (Math.abs(c - step) <= ChangePointBench.MARGIN)
                    return "held, not revealed: first held at arrival " + i + " as index " + c;
        boolean found = foundOffline(x, from, to, step, settings);
        if (!found
                && !Double.isFinite(settings.splitWinsorize())
                && foundOffline(x, from, to, step, settings.withSplitWinsorize(3)))
            return "never proposed: found when the split clips";
        if (found) return "a neighbour not held";
        List<String> failing = failing(split, settings.maxP(), ChangePoints.MIN_CHANGE);
        return failing.isEmpty() ? "never proposed: the merge's checks pass" : String.join(" + ", failing);
    }

    private static boolean foundOffline(double[] x, int from, int to, int step, ChangePointSettings settings) {
        for (ChangePoints.ChangePoint c : ChangePoints.detect(x, from, to, settings, ChangePoints.MIN_CHANGE))
            if (Math.abs(c.index() - step) <= ChangePointBench.MARGIN) return true;
        return false;
    }

    private static String kind(ChangePointBench.Synthetic.Series s, int step) {
        List<String> kinds = new ArrayList<>();
        if (s.heavy()) kinds.add("heavy tails");
        if (s.bimodal()) kinds.add("bimodal");
        if (s.drift() != 0) kinds.add(String.format("drift %+.1f %%", 100 * s.drift()));
        int outliers = 0;
        for (int i = Math.max(0, step - 20); i < Math.min(s.values().length, step + 20); i++)
            if (s.outliers()[i]) outliers++;
        if (outliers > 0) kinds.add(outliers + " outliers within 20 points");
        return kinds.isEmpty() ? "plain normal" : String.join(", ", kinds);
    }

    private static String flagsNear(int[] flagged, int step) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < flagged.length; i++)
            if (flagged[i] >= 0 && Math.abs(flagged[i] - step) <= 40) out.add(flagged[i] + " at " + i);
        return out.isEmpty() ? "none within 40 points" : String.join(", ", out);
    }
}

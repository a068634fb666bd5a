package dev.baton.bench;

import dev.baton.alerts.ChangePointSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The change-point detector's settings measured one against another (decision 0061,
 * docs/benchmarks/change-points.md): {@code bench/run changepoints --variants online|judge|all}.
 * Each variant is a row of {@link ChangePointBench#row}, then where its false alerts come from.
 */
final class ChangePointVariants {
    private ChangePointVariants() {}

    static Map<String, ChangePointSettings> settings() {
        // Decision 0067's default (before decision 0071's early warning), as these were measured.
        ChangePointSettings d = ChangePointSettings.DEFAULT
                .withEarlyQuantile(0)
                .withSplitWinsorize(Double.POSITIVE_INFINITY)
                .withSmallCuts(false);
        Map<String, ChangePointSettings> out = new LinkedHashMap<>();
        // Decision 0067: decision 0061's settings with the step on a common trend.
        ChangePointSettings before = d.withTrendStep(0);
        out.put("decision 0061 (Bonferroni + medians)", before);
        out.put("decision 0067 (0061 + step on a common trend)", d);
        out.put("0061 + trend, new level ≤ 20 points old", d.withMaxAge(20));
        out.put("0061 + trend, winsorized at 3", d.withWinsorize(3));
        out.put(
                "0061 + trend, winsorized at 3, ≤ 20 points old",
                d.withWinsorize(3).withMaxAge(20));
        out.put("0061 + trend, p < 0.005", d.withMaxP(0.005));
        out.put("0061 + trend, positions^0.5", d.withPositionsPower(0.5));
        out.put("0061 + trend, winsorized at 3.5", d.withWinsorize(3.5));
        out.put("0061 + trend, winsorized at 3, p < 0.0005", d.withWinsorize(3).withMaxP(0.0005));
        return out;
    }

    /**
     * Decision 0071's early warning of the newest points (issue 44's delay) at three quantiles
     * against none: {@code --variants early|early-judge}.
     */
    static Map<String, ChangePointSettings> early() {
        // Decision 0071's default, as these were measured (before decision 0075's split).
        ChangePointSettings d = ChangePointSettings.DEFAULT
                .withSplitWinsorize(Double.POSITIVE_INFINITY)
                .withSmallCuts(false);
        Map<String, ChangePointSettings> out = new LinkedHashMap<>();
        out.put("decision 0067, no early warning", d.withEarlyQuantile(0));
        out.put("default (0067 + early warning at 0.975)", d);
        out.put("0067 + early warning at 0.95", d.withEarlyQuantile(0.95));
        out.put("0067 + early warning at 0.90", d.withEarlyQuantile(0.90));
        out.put("default, new level ≤ 30 points old", d.withMaxAge(30));
        out.put("default, new level ≤ 50 points old", d.withMaxAge(50));
        out.put("default, new level ≤ 80 points old", d.withMaxAge(80));
        return out;
    }

    /**
     * Issue 44's recall (decision 0075): the top-down split proposing on clipped points (when at
     * most {@code ChangePoints.SPLIT_EXTREMES} of the window lie beyond the clipping) while the
     * merge decides on the points as they are: {@code --variants recall|recall-judge}.
     */
    static Map<String, ChangePointSettings> recall() {
        // Decision 0075's default, as these were measured (before decision 0077's cuts).
        ChangePointSettings d = ChangePointSettings.DEFAULT.withSmallCuts(false);
        Map<String, ChangePointSettings> out = new LinkedHashMap<>();
        out.put(
                "decision 0071 (split and merge on the points as they are)",
                d.withSplitWinsorize(Double.POSITIVE_INFINITY));
        out.put("decision 0075: split proposes on points clipped at 3", d);
        out.put("split proposes on points clipped at 4", d.withSplitWinsorize(4));
        out.put("split proposes on points clipped at 2.5", d.withSplitWinsorize(2.5));
        return out;
    }

    /** Issue 44's TCPD cover and recall, decision 0077: {@code --variants cover|cover-judge}. */
    static Map<String, ChangePointSettings> cover() {
        ChangePointSettings d = ChangePointSettings.DEFAULT;
        Map<String, ChangePointSettings> out = new LinkedHashMap<>();
        out.put("decision 0075 (no cuts below the least change)", d.withSmallCuts(false));
        out.put("default: significant splits below the least change kept as cuts", d);
        out.put(
                "0075 + the t-test's error widened by lag-1 autocorrelation",
                d.withSmallCuts(false).withDependence(true));
        out.put("default + the t-test's error widened by lag-1 autocorrelation", d.withDependence(true));
        return out;
    }

    static void run(
            String which,
            List<ChangePointBench.Synthetic.Series> synthetic,
            Map<String, double[]> tcpd,
            Map<String, List<int[]>> annotations) {
        if (which.equals("missed")) {
            MissedSteps.report(ChangePointSettings.DEFAULT, synthetic);
            return;
        }
        if (which.startsWith("missed-")) {
            // missed-K: the same with the split proposing on points clipped at K (Infinity: not clipped).
            MissedSteps.report(
                    ChangePointSettings.DEFAULT.withSplitWinsorize(Double.parseDouble(which.substring(7))), synthetic);
            return;
        }
        if (which.startsWith("tcpd")) {
            // tcpd: the default; tcpd-0075: without decision 0077's cuts; tcpd-dependence: with the
            // t-test widened by autocorrelation (measured, not adopted).
            ChangePointSettings t = ChangePointSettings.DEFAULT;
            if (which.contains("0075")) t = t.withSmallCuts(false);
            if (which.contains("dependence")) t = t.withDependence(true);
            tcpdSeries(new ChangePointBench.OnlineChangePoint("Online", t, 0.05, 0.05), tcpd, annotations);
            return;
        }
        List<ChangePointBench.Detector> detectors = new ArrayList<>();
        if (which.equals("cover"))
            for (Map.Entry<String, ChangePointSettings> e : cover().entrySet())
                detectors.add(
                        new ChangePointBench.OnlineChangePoint("Online, " + e.getKey(), e.getValue(), 0.05, 0.05));
        if (which.equals("cover-judge"))
            for (Map.Entry<String, ChangePointSettings> e : cover().entrySet())
                detectors.add(new ChangePointBench.JudgedChangePoint(
                        "Judge 64 + stored, " + e.getKey(), e.getValue(), 0.05, 0.05, 64, true));
        if (which.equals("recall"))
            for (Map.Entry<String, ChangePointSettings> e : recall().entrySet())
                detectors.add(
                        new ChangePointBench.OnlineChangePoint("Online, " + e.getKey(), e.getValue(), 0.05, 0.05));
        if (which.equals("recall-judge"))
            for (Map.Entry<String, ChangePointSettings> e : recall().entrySet())
                detectors.add(new ChangePointBench.JudgedChangePoint(
                        "Judge 64 + stored, " + e.getKey(), e.getValue(), 0.05, 0.05, 64, true));
        if (which.equals("early"))
            for (Map.Entry<String, ChangePointSettings> e : early().entrySet())
                detectors.add(
                        new ChangePointBench.OnlineChangePoint("Online, " + e.getKey(), e.getValue(), 0.05, 0.05));
        if (which.equals("early-judge"))
            for (Map.Entry<String, ChangePointSettings> e : early().entrySet())
                detectors.add(new ChangePointBench.JudgedChangePoint(
                        "Judge 64 + stored, " + e.getKey(), e.getValue(), 0.05, 0.05, 64, true));
        for (Map.Entry<String, ChangePointSettings> e : settings().entrySet()) {
            if (which.equals("online") || which.equals("all"))
                detectors.add(
                        new ChangePointBench.OnlineChangePoint("Online, " + e.getKey(), e.getValue(), 0.05, 0.05));
            if (which.equals("judge") || which.equals("all"))
                detectors.add(new ChangePointBench.JudgedChangePoint(
                        "Judge 64 + stored, " + e.getKey(), e.getValue(), 0.05, 0.05, 64, true));
        }
        if (which.startsWith("window")) {
            // The judge's replay against its window: window64, window128, ...
            int w = Integer.parseInt(which.substring("window".length()));
            detectors.add(new ChangePointBench.JudgedChangePoint(
                    "Judge " + w + ", default, replay only", ChangePointSettings.DEFAULT, 0.05, 0.05, w, false));
            detectors.add(new ChangePointBench.JudgedChangePoint(
                    "Judge " + w + ", default, replay + stored", ChangePointSettings.DEFAULT, 0.05, 0.05, w, true));
        }
        System.out.println(
                "| detector | synthetic pooled F1 (P / R) | false alerts / 1,000 points | the same, no-step series | recall, steps ≥ 2σ / median delay | TCPD F1 / cover | time per point, 500 history |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (ChangePointBench.Detector d : detectors) {
            System.out.println(ChangePointBench.row(d, synthetic, tcpd, annotations));
            System.out.println("    " + diagnose(d, synthetic));
            System.out.println("    " + tcpdLosses(d, tcpd, annotations));
        }
    }

    /**
     * Where the false alerts come from, each counted once, in this order: a second flag for a
     * step already found ("again"), a flag 6–20 points from a step ("near"), an outlier among the
     * points from the flagged index to the flag ("outlier"), else the kind of series (bimodal,
     * heavy-tailed, drifting, plain). Then recall on steps ≥ 2σ that are also ≥ 5 % (the least
     * change: the others cannot be found) and the share of steps ≥ 2σ found within 2 points.
     */
    static String diagnose(ChangePointBench.Detector d, List<ChangePointBench.Synthetic.Series> synthetic) {
        Map<String, Integer> causes = new LinkedHashMap<>();
        for (String c : List.of("again", "near", "outlier", "bimodal", "heavy", "drift", "plain")) causes.put(c, 0);
        int big = 0;
        int bigReachable = 0;
        int bigReachableFound = 0;
        int foundWithin2 = 0;
        int bigFound = 0;
        int[] ages = new int[3];
        for (ChangePointBench.Synthetic.Series s : synthetic) {
            int[] flagged = d.run(s.values());
            boolean[] used = new boolean[flagged.length];
            int[] delay = new int[s.steps().length];
            for (int k = 0; k < s.steps().length; k++) {
                delay[k] = -1;
                for (int i = 0; i < flagged.length; i++) {
                    if (flagged[i] < 0 || used[i] || Math.abs(flagged[i] - s.steps()[k]) > ChangePointBench.MARGIN)
                        continue;
                    used[i] = true;
                    delay[k] = Math.max(0, i - s.steps()[k]);
                    break;
                }
                if (Math.abs(s.sizes()[k]) < 2 * s.noise()) continue;
                big++;
                if (delay[k] >= 0) {
                    bigFound++;
                    if (delay[k] <= 2) foundWithin2++;
                }
                if (Math.abs(s.sizes()[k]) >= 0.05) {
                    bigReachable++;
                    if (delay[k] >= 0) bigReachableFound++;
                }
            }
            for (int i = 0; i < flagged.length; i++) {
                if (flagged[i] < 0 || used[i]) continue;
                causes.merge(cause(s, flagged[i], i), 1, Integer::sum);
                int age = i - flagged[i];
                ages[age <= 2 ? 0 : age <= 10 ? 1 : 2]++;
            }
        }
        return String.format(
                "false alerts by cause %s, by age (flag − index) ≤ 2 / 3–10 / > 10: %d / %d / %d; steps ≥ 2σ: %d, of them ≥ 5 %%: %d, recall on those %.3f; found within 2 points %.2f",
                causes,
                ages[0],
                ages[1],
                ages[2],
                big,
                bigReachable,
                bigReachable == 0 ? 0 : (double) bigReachableFound / bigReachable,
                bigFound == 0 ? 0 : (double) foundWithin2 / bigFound);
    }

    /** The TCPD series where flagging loses most against never flagging: name, F1 − F1 of none, flags. */
    static String tcpdLosses(ChangePointBench.Detector d, Map<String, double[]> tcpd, Map<String, List<int[]>> ann) {
        List<String> rows = new ArrayList<>();
        List<Double> losses = new ArrayList<>();
        for (Map.Entry<String, double[]> e : tcpd.entrySet()) {
            int[] found = java.util.Arrays.stream(d.run(e.getValue()))
                    .filter(i -> i >= 0)
                    .distinct()
                    .sorted()
                    .toArray();
            double loss = ChangePointBench.Scores.f1(ann.get(e.getKey()), found)
                    - ChangePointBench.Scores.f1(ann.get(e.getKey()), new int[0]);
            rows.add(String.format("%s %+.2f (%d flags, n %d)", e.getKey(), loss, found.length, e.getValue().length));
            losses.add(loss);
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) order.add(i);
        order.sort((a, b) -> Double.compare(losses.get(a), losses.get(b)));
        StringBuilder out = new StringBuilder("TCPD, F1 against never flagging, worst first: ");
        for (int i = 0; i < Math.min(8, order.size()); i++)
            out.append(rows.get(order.get(i))).append("; ");
        int better = 0;
        for (double l : losses) if (l > 0) better++;
        return out.append("better than never on ")
                .append(better)
                .append(" of ")
                .append(rows.size())
                .toString();
    }

    /** Each TCPD series: F1 and cover against never flagging, the flags (index at arrival), the annotations. */
    static void tcpdSeries(ChangePointBench.Detector d, Map<String, double[]> tcpd, Map<String, List<int[]>> ann) {
        double f1 = 0;
        double cover = 0;
        for (Map.Entry<String, double[]> e : tcpd.entrySet()) {
            int[] flagged = d.run(e.getValue());
            List<String> flags = new ArrayList<>();
            for (int i = 0; i < flagged.length; i++) if (flagged[i] >= 0) flags.add(flagged[i] + "@" + i);
            int[] found = java.util.Arrays.stream(flagged)
                    .filter(i -> i >= 0)
                    .distinct()
                    .sorted()
                    .toArray();
            int n = e.getValue().length;
            List<int[]> a = ann.get(e.getKey());
            double f = ChangePointBench.Scores.f1(a, found);
            double c = ChangePointBench.Scores.cover(a, found, n);
            f1 += f;
            cover += c;
            List<String> annotators = new ArrayList<>();
            for (int[] x : a) annotators.add(java.util.Arrays.toString(x));
            System.out.printf(
                    "%s n %d: F1 %.3f (never %.3f), cover %.3f (never %.3f); flags %s; annotations %s%n",
                    e.getKey(),
                    n,
                    f,
                    ChangePointBench.Scores.f1(a, new int[0]),
                    c,
                    ChangePointBench.Scores.cover(a, new int[0], n),
                    flags,
                    annotators);
        }
        System.out.printf("TCPD F1 %.4f, cover %.4f%n", f1 / tcpd.size(), cover / tcpd.size());
    }

    private static String cause(ChangePointBench.Synthetic.Series s, int index, int at) {
        for (int step : s.steps()) if (Math.abs(index - step) <= ChangePointBench.MARGIN) return "again";
        for (int step : s.steps()) if (Math.abs(index - step) <= 20) return "near";
        for (int i = Math.max(0, index - 1); i <= at; i++) if (s.outliers()[i]) return "outlier";
        if (s.bimodal()) return "bimodal";
        if (s.heavy()) return "heavy";
        if (s.drift() != 0) return "drift";
        return "plain";
    }
}

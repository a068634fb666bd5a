package dev.baton.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.alerts.ChangePointSettings;
import dev.baton.alerts.ChangePoints;
import dev.baton.alerts.Limits;
import dev.baton.alerts.Model;
import dev.baton.alerts.ThresholdRules;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Detection quality of Baton's verdicts, online (issue 44, docs/benchmarks.md "Change points"):
 * every point of a series is judged when it arrives, from the points before it only, as a CI
 * would. Two sets of series: {@link Synthetic}'s benchmark-like series (1,000 of 200 points,
 * seeded) and the Turing Change Point Dataset (van den Burg and Williams 2020, arXiv 2003.06222;
 * the series whose JSON is in its repository, with its annotations, in this module's resources,
 * MIT-licensed, some series under their own licence beside them; scored as the paper scores a
 * univariate method: the 26 univariate series of them that are not quality controls, where
 * never flagging scores 0.642 / 0.549, each series as TCPDBench publishes it). Each detector is run at
 * Baton's defaults, untuned. {@code bench/run changepoints [--series N] [--seed S]}.
 */
final class ChangePointBench {
    static final int MARGIN = 5;
    static final String TCPD = "/dev/baton/bench/tcpd/";

    private ChangePointBench() {}

    /** A way of judging a series point by point: the indices it flags (predicted change points) and when. */
    interface Detector {
        String name();

        /** For each point i (from 0), the change index it flags at i, or −1. */
        default int[] run(double[] x) {
            return run(x, x.length, new long[1]);
        }

        /** The same, adding to {@code nanos[0]} the time spent judging the points from {@code timedFrom} on. */
        int[] run(double[] x, int timedFrom, long[] nanos);
    }

    /** A threshold model judged as Judge does: the window of the last {@code window} points. */
    record Threshold(String name, Model model, Double lower, Double upper, int window) implements Detector {
        @Override
        public int[] run(double[] x, int timedFrom, long[] nanos) {
            int[] flagged = new int[x.length];
            for (int i = 0; i < x.length; i++) {
                long t0 = System.nanoTime();
                double[] baseline = Arrays.copyOfRange(x, Math.max(0, i - window), i);
                Limits l = model.limits(baseline, lower, upper, model.minimumBaseline());
                flagged[i] = l.breached(x[i]) == null ? -1 : i;
                if (i >= timedFrom) nanos[0] += System.nanoTime() - t0;
            }
            return flagged;
        }
    }

    /**
     * The {@code change_point} model as Judge runs it: the window replayed through {@link
     * ChangePoints.Online} for each value; with {@code stored}, as the store then keeps it
     * (decision 0061): a change point revealed within {@link ChangePoints#SAME_WITHIN} points of
     * one already alerted (where the later judgements moved it) raises no second alert.
     */
    record JudgedChangePoint(
            String name, ChangePointSettings settings, Double lower, Double upper, int window, boolean stored)
            implements Detector {
        @Override
        public int[] run(double[] x, int timedFrom, long[] nanos) {
            int[] flagged = new int[x.length];
            List<Integer> alerted = new ArrayList<>();
            for (int i = 0; i < x.length; i++) {
                flagged[i] = -1;
                if (i < Model.CHANGE_POINT.minimumBaseline()) continue;
                long t0 = System.nanoTime();
                int from = Math.max(0, i - window);
                ChangePoints.Online replay = new ChangePoints.Online(settings, lower, upper);
                for (int k = from; k < i; k++) replay.add(x[k]);
                ChangePoints.ChangePoint c = replay.add(x[i]);
                if (i >= timedFrom) nanos[0] += System.nanoTime() - t0;
                int at = c == null ? -1 : from + c.index();
                if (stored) {
                    if (at >= 0) for (int a : alerted) if (Math.abs(a - at) <= ChangePoints.SAME_WITHIN) at = -1;
                    // Each alerted change point found again nearby has moved there (the store's revision).
                    for (int k = 0; k < alerted.size(); k++) {
                        int was = alerted.get(k);
                        int nearest = was;
                        int best = Integer.MAX_VALUE;
                        for (ChangePoints.ChangePoint f : replay.changePoints()) {
                            int d = Math.abs(from + f.index() - was);
                            if (d <= ChangePoints.SAME_WITHIN && d < best) {
                                best = d;
                                nearest = from + f.index();
                            }
                        }
                        alerted.set(k, nearest);
                    }
                    if (at >= 0) alerted.add(at);
                }
                flagged[i] = at;
            }
            return flagged;
        }
    }

    /** {@link ChangePoints.Online} over the whole history, incremental. */
    record OnlineChangePoint(String name, ChangePointSettings settings, Double lower, Double upper)
            implements Detector {
        @Override
        public int[] run(double[] x, int timedFrom, long[] nanos) {
            ChangePoints.Online online = new ChangePoints.Online(settings, lower, upper);
            int[] flagged = new int[x.length];
            for (int i = 0; i < x.length; i++) {
                long t0 = System.nanoTime();
                ChangePoints.ChangePoint c = online.add(x[i]);
                flagged[i] = c == null ? -1 : c.index();
                if (i >= timedFrom) nanos[0] += System.nanoTime() - t0;
            }
            return flagged;
        }
    }

    static List<Detector> detectors() {
        return List.of(
                new Threshold("t_test 0.99 both sides, window 64", Model.T_TEST, 0.99, 0.99, 64),
                new Threshold("z_score 0.99 both sides, window 64", Model.Z_SCORE, 0.99, 0.99, 64),
                new JudgedChangePoint(
                        "change_point 5 % both sides, window 64 (Judge)",
                        ChangePointSettings.DEFAULT, 0.05, 0.05, ThresholdRules.DEFAULT_MAX_SAMPLES, true),
                new OnlineChangePoint(
                        "change_point 5 % both sides, whole history (Online)",
                        ChangePointSettings.DEFAULT, 0.05, 0.05));
    }

    public static void run(String[] args) throws IOException {
        int count = 1000;
        long seed = 44;
        String variants = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--series" -> count = Integer.parseInt(args[i + 1]);
                case "--seed" -> seed = Long.parseLong(args[i + 1]);
                case "--variants" -> variants = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (variants != null) {
            ChangePointVariants.run(variants, Synthetic.generate(count, 200, seed), tcpdSeries(), tcpdAnnotations());
            return;
        }
        List<Synthetic.Series> synthetic = Synthetic.generate(count, 200, seed);
        Map<String, double[]> tcpd = tcpdSeries();
        Map<String, List<int[]>> annotations = tcpdAnnotations();
        System.out.printf(
                "synthetic: %d series of 200 points (seed %d), %d steps; TCPD: %d series%n",
                synthetic.size(),
                seed,
                synthetic.stream().mapToInt(s -> s.steps().length).sum(),
                tcpd.size());
        System.out.println(
                "| detector | synthetic pooled F1 (P / R) | false alerts / 1,000 points | the same, no-step series | recall, steps ≥ 2σ / median delay | TCPD F1 / cover | time per point, 500 history |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (Detector d : detectors()) {
            System.out.println(row(d, synthetic, tcpd, annotations));
        }
        double[] never = {0, 0};
        for (Map.Entry<String, double[]> e : tcpd.entrySet()) {
            never[0] += Scores.f1(annotations.get(e.getKey()), new int[0]);
            never[1] += Scores.cover(annotations.get(e.getKey()), new int[0], e.getValue().length);
        }
        System.out.printf(
                "never flagging: TCPD F1 %.3f / cover %.3f%n", never[0] / tcpd.size(), never[1] / tcpd.size());
    }

    static String row(
            Detector d, List<Synthetic.Series> synthetic, Map<String, double[]> tcpd, Map<String, List<int[]>> ann) {
        long tp = 0;
        long predicted = 0;
        long truth = 0;
        long falseAlerts = 0;
        long points = 0;
        long quietFalse = 0;
        long quietPoints = 0;
        long bigSteps = 0;
        long bigFound = 0;
        // Steps ≥ 2σ that are also at least the least relative change (5 %): the only ones the
        // change_point model can find by design.
        long bigReachable = 0;
        long bigReachableFound = 0;
        List<Integer> delays = new ArrayList<>();
        for (Synthetic.Series s : synthetic) {
            int[] flagged = d.run(s.values());
            Scores.Match m = Scores.match(s.steps(), flagged);
            tp += m.truePositives();
            predicted += m.predicted();
            truth += s.steps().length;
            falseAlerts += m.predicted() - m.truePositives();
            points += s.values().length;
            if (s.steps().length == 0) {
                quietFalse += m.predicted();
                quietPoints += s.values().length;
            }
            for (int k = 0; k < s.steps().length; k++) {
                if (Math.abs(s.sizes()[k]) < 2 * s.noise()) continue;
                bigSteps++;
                boolean reachable = Math.abs(s.sizes()[k]) >= ChangePoints.MIN_CHANGE;
                if (reachable) bigReachable++;
                if (m.delays()[k] >= 0) {
                    bigFound++;
                    if (reachable) bigReachableFound++;
                    delays.add(m.delays()[k]);
                }
            }
        }
        double precision = predicted == 0 ? 0 : (double) tp / predicted;
        double recall = truth == 0 ? 0 : (double) tp / truth;
        double f1 = precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall);
        double tcpdF1 = 0;
        double tcpdCover = 0;
        for (Map.Entry<String, double[]> e : tcpd.entrySet()) {
            int[] flagged = d.run(e.getValue());
            int[] found = Arrays.stream(flagged)
                    .filter(i -> i >= 0)
                    .distinct()
                    .sorted()
                    .toArray();
            tcpdF1 += Scores.f1(ann.get(e.getKey()), found);
            tcpdCover += Scores.cover(ann.get(e.getKey()), found, e.getValue().length);
        }
        delays.sort(null);
        String delay = delays.isEmpty() ? "-" : String.valueOf(delays.get(delays.size() / 2));
        return String.format(
                "| %s | %.4f (%.4f / %.4f) | %.2f | %.2f | %.3f (≥ 5 %%: %.3f) / %s points | %.3f / %.3f | %.3f ms |",
                d.name(),
                f1,
                precision,
                recall,
                1000.0 * falseAlerts / points,
                quietPoints == 0 ? 0 : 1000.0 * quietFalse / quietPoints,
                bigSteps == 0 ? 0 : (double) bigFound / bigSteps,
                bigReachable == 0 ? 0 : (double) bigReachableFound / bigReachable,
                delay,
                tcpdF1 / tcpd.size(),
                tcpdCover / tcpd.size(),
                timePerPoint(d));
    }

    /**
     * Milliseconds to judge one new point after 500 points of history: points 500 to 599 of a
     * 600-point series timed one by one, the fastest of 7 runs (the machine's other load only
     * adds time).
     */
    static double timePerPoint(Detector d) {
        double[] x = Synthetic.generate(1, 600, 7).get(0).values();
        for (int i = 0; i < 3; i++) d.run(x);
        long fastest = Long.MAX_VALUE;
        for (int k = 0; k < 7; k++) {
            long[] nanos = new long[1];
            d.run(x, 500, nanos);
            fastest = Math.min(fastest, nanos[0]);
        }
        return fastest / 100.0 / 1e6;
    }

    static Map<String, double[]> tcpdSeries() throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode annotations = json.readTree(resource("annotations.json"));
        Map<String, double[]> out = new LinkedHashMap<>();
        for (Iterator<String> names = annotations.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            // The paper's quality-control series check the annotators and are not scored (TCPDBench's
            // QC_DATASETS, removed before every average).
            if (name.startsWith("quality_control_")) continue;
            InputStream in = ChangePointBench.class.getResourceAsStream(TCPD + name + ".json");
            if (in == null) continue; // not redistributable: not in TCPD's repository
            try (in) {
                JsonNode series = json.readTree(in);
                // The detector is univariate: the paper scores univariate methods on univariate
                // series only (run_log is multivariate).
                if (series.get("n_dim").asInt() != 1) continue;
                JsonNode raw = series.get("series").get(0).get("raw");
                double[] x = new double[raw.size()];
                for (int i = 0; i < x.length; i++) {
                    // A missing value (uk_coal_employ) repeats the one before it.
                    x[i] = raw.get(i).isNull()
                            ? (i == 0 ? 0 : x[i - 1])
                            : raw.get(i).asDouble();
                }
                out.put(name, x);
            }
        }
        return out;
    }

    static Map<String, List<int[]>> tcpdAnnotations() throws IOException {
        JsonNode annotations = new ObjectMapper().readTree(resource("annotations.json"));
        Map<String, List<int[]>> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = annotations.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            List<int[]> byAnnotator = new ArrayList<>();
            for (JsonNode cps : e.getValue()) {
                int[] at = new int[cps.size()];
                for (int i = 0; i < at.length; i++) at[i] = cps.get(i).asInt();
                byAnnotator.add(at);
            }
            out.put(e.getKey(), byAnnotator);
        }
        return out;
    }

    private static InputStream resource(String name) {
        return ChangePointBench.class.getResourceAsStream(TCPD + name);
    }

    /** The figures: matching with a margin, TCPD's F1 and cover (van den Burg and Williams 2020, §4.1). */
    static final class Scores {
        private Scores() {}

        /**
         * Synthetic steps against flagged points: a step is found by the earliest flag at or after
         * it, up to {@link #MARGIN} points before it, naming an index within the margin (each flag
         * counts once); the delay is the point the flag came at minus the step.
         */
        record Match(int truePositives, int predicted, int[] delays) {}

        static Match match(int[] steps, int[] flagged) {
            int predicted = 0;
            for (int f : flagged) if (f >= 0) predicted++;
            boolean[] used = new boolean[flagged.length];
            int[] delays = new int[steps.length];
            int tp = 0;
            for (int k = 0; k < steps.length; k++) {
                delays[k] = -1;
                for (int i = 0; i < flagged.length; i++) {
                    if (flagged[i] < 0 || used[i] || Math.abs(flagged[i] - steps[k]) > MARGIN) continue;
                    used[i] = true;
                    delays[k] = Math.max(0, i - steps[k]);
                    tp++;
                    break;
                }
            }
            return new Match(tp, predicted, delays);
        }

        /** Points of {@code truth} matched to distinct points of {@code found} within the margin, nearest first. */
        static int truePositives(int[] truth, int[] found) {
            List<Integer> left = new ArrayList<>();
            for (int f : found) left.add(f);
            int tp = 0;
            for (int t : truth) {
                int best = -1;
                for (int j = 0; j < left.size(); j++) {
                    int dist = Math.abs(left.get(j) - t);
                    if (dist <= MARGIN && (best < 0 || dist < Math.abs(left.get(best) - t))) best = j;
                }
                if (best >= 0) {
                    left.remove(best);
                    tp++;
                }
            }
            return tp;
        }

        /** TCPD's F1: 0 counts as a change point everywhere; precision against the union of annotations. */
        static double f1(List<int[]> annotators, int[] found) {
            int[] x = withZero(found);
            java.util.TreeSet<Integer> union = new java.util.TreeSet<>();
            double recall = 0;
            for (int[] a : annotators) {
                int[] tk = withZero(a);
                for (int t : tk) union.add(t);
                recall += (double) truePositives(tk, x) / tk.length;
            }
            recall /= annotators.size();
            double precision = (double) truePositives(
                            union.stream().mapToInt(Integer::intValue).toArray(), x)
                    / x.length;
            return precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall);
        }

        private static int[] withZero(int[] cps) {
            return java.util.stream.IntStream.concat(java.util.stream.IntStream.of(0), Arrays.stream(cps))
                    .distinct()
                    .sorted()
                    .toArray();
        }

        /**
         * TCPD's cover: for each annotator, the segments of their partition weighted by length,
         * each by its best Jaccard index with a segment of the found partition; averaged.
         */
        static double cover(List<int[]> annotators, int[] found, int n) {
            List<int[]> predicted = segments(found, n);
            double sum = 0;
            for (int[] a : annotators) {
                double c = 0;
                for (int[] seg : segments(a, n)) {
                    double best = 0;
                    for (int[] p : predicted) {
                        int inter = Math.max(0, Math.min(seg[1], p[1]) - Math.max(seg[0], p[0]));
                        int union = Math.max(seg[1], p[1]) - Math.min(seg[0], p[0]);
                        best = Math.max(best, (double) inter / union);
                    }
                    c += (seg[1] - seg[0]) * best;
                }
                sum += c / n;
            }
            return sum / annotators.size();
        }

        private static List<int[]> segments(int[] cps, int n) {
            int[] cuts = java.util.stream.IntStream.concat(
                            Arrays.stream(withZero(cps)).filter(i -> i < n), java.util.stream.IntStream.of(n))
                    .distinct()
                    .sorted()
                    .toArray();
            List<int[]> out = new ArrayList<>();
            for (int i = 0; i + 1 < cuts.length; i++) out.add(new int[] {cuts[i], cuts[i + 1]});
            return out;
        }
    }

    /**
     * Benchmark-like series: a level, relative noise of 1–10 % (normal, or Student's t with 3
     * degrees of freedom for heavy tails), 1 % outliers 20–50 % above, 0–3 steps of 2–20 % either
     * way at least 20 points apart, a drift of up to ±5 % over the series in a fifth of them, and
     * a bimodal tenth (30 % of points 3σ above).
     */
    static final class Synthetic {
        private Synthetic() {}

        /** A series, its steps (index, relative size), its noise and how it was made (for the diagnosis of false alerts). */
        record Series(
                double[] values,
                int[] steps,
                double[] sizes,
                double noise,
                boolean heavy,
                boolean bimodal,
                double drift,
                boolean[] outliers) {}

        static List<Series> generate(int count, int length, long seed) {
            SplittableRandom random = new SplittableRandom(seed);
            List<Series> out = new ArrayList<>(count);
            for (int s = 0; s < count; s++) {
                double level = Math.exp(random.nextDouble(0, Math.log(1000)));
                double noise = random.nextDouble(0.01, 0.10);
                boolean heavy = random.nextDouble() < 0.25;
                boolean bimodal = random.nextDouble() < 0.10;
                double drift = random.nextDouble() < 0.20 ? random.nextDouble(-0.05, 0.05) : 0;
                int stepCount = random.nextInt(4);
                int[] steps = new int[stepCount];
                double[] sizes = new double[stepCount];
                placing:
                while (true) {
                    for (int k = 0; k < stepCount; k++) steps[k] = random.nextInt(20, length - 10);
                    Arrays.sort(steps);
                    for (int k = 1; k < stepCount; k++) if (steps[k] - steps[k - 1] < 20) continue placing;
                    break;
                }
                for (int k = 0; k < stepCount; k++)
                    sizes[k] = random.nextDouble(0.02, 0.20) * (random.nextBoolean() ? 1 : -1);
                double[] x = new double[length];
                boolean[] outliers = new boolean[length];
                double current = level;
                int next = 0;
                for (int i = 0; i < length; i++) {
                    if (next < stepCount && steps[next] == i) current *= 1 + sizes[next++];
                    double e = heavy ? studentT3(random) / Math.sqrt(3) : gaussian(random);
                    double v = current * (1 + drift * i / length) * (1 + noise * e);
                    if (bimodal && random.nextDouble() < 0.3) v += current * 3 * noise;
                    if (random.nextDouble() < 0.01) {
                        v *= 1 + random.nextDouble(0.2, 0.5);
                        outliers[i] = true;
                    }
                    x[i] = v;
                }
                out.add(new Series(x, steps, sizes, noise, heavy, bimodal, drift, outliers));
            }
            return out;
        }

        private static double gaussian(SplittableRandom r) {
            // Box–Muller.
            return Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
        }

        private static double studentT3(SplittableRandom r) {
            double z = gaussian(r);
            double chi = 0;
            for (int i = 0; i < 3; i++) {
                double g = gaussian(r);
                chi += g * g;
            }
            return z / Math.sqrt(chi / 3);
        }
    }
}

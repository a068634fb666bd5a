package dev.baton.bench;

import dev.baton.alerts.PairedVerdict;
import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.JsonAdapter;
import dev.baton.core.paired.PairedSamples;
import dev.baton.core.paired.StoppingRule;
import dev.baton.protocol.model.PairedConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.statistics.distribution.TDistribution;

/**
 * Paired runs' power and false verdicts (issue 45, docs/benchmarks.md "Paired runs"): a CPU-bound
 * workload (a fixed loop, timed), with B made {@code --slowdown} slower by running that much more
 * of the loop, while competing threads (one per core) spin in random bursts 30 % of the time.
 * Each of {@code --runs} experiments is a paired run with until_significant (the order drawn per
 * pair, the runner's {@link StoppingRule}, the verdict from {@link PairedVerdict}) and, on the
 * same machine, today's way: 30 runs of A as history, then B once, judged by a one-sided
 * {@code t_test} prediction limit at 0.99 (alerts.md's default). Run with no slowdown it counts
 * false "slower" verdicts. {@code bench/run paired [--runs N] [--slowdown 0.05] [--loop N]
 * [--max-pairs N] [--busy 0.3]}.
 */
final class PairedBench {
    private PairedBench() {}

    private static volatile long sink;

    static void run(String[] args) throws Exception {
        int runs = 40;
        double slowdown = 0.05;
        long loop = 2_000_000;
        int maxPairs = 200;
        double busy = 0.3;
        for (int i = 0; i < args.length - 1; i += 2) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[i + 1]);
                case "--slowdown" -> slowdown = Double.parseDouble(args[i + 1]);
                case "--loop" -> loop = Long.parseLong(args[i + 1]);
                case "--max-pairs" -> maxPairs = Integer.parseInt(args[i + 1]);
                case "--busy" -> busy = Double.parseDouble(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> competitors = new ArrayList<>();
        int cores = Runtime.getRuntime().availableProcessors();
        for (int c = 0; c < cores; c++) {
            final long seed = c;
            final double share = busy;
            competitors.add(Thread.ofPlatform().daemon().start(() -> compete(stop, share, seed)));
        }
        try {
            for (int w = 0; w < 200; w++) work(loop); // JIT warm-up
            System.out.printf(
                    Locale.ROOT,
                    "paired bench: %d runs per case, loop %d, competing threads %d busy %.0f %% of the time, at most %d pairs%n",
                    runs,
                    loop,
                    cores,
                    100 * busy,
                    maxPairs);
            for (double effect : new double[] {slowdown, 0}) {
                int pairedSlower = 0;
                int historySlower = 0;
                List<Integer> pairsNeeded = new ArrayList<>();
                List<Double> cvs = new ArrayList<>();
                for (int r = 0; r < runs; r++) {
                    Outcome o = paired(loop, effect, maxPairs, 1000L * r + Math.round(effect * 1e4));
                    if (o.slower) pairedSlower++;
                    pairsNeeded.add(o.pairs);
                    cvs.add(o.cv);
                    if (history(loop, effect)) historySlower++;
                }
                int[] sorted = pairsNeeded.stream()
                        .mapToInt(Integer::intValue)
                        .sorted()
                        .toArray();
                double[] cv =
                        cvs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
                System.out.printf(
                        Locale.ROOT,
                        "B %.1f %% slower: paired until_significant says slower in %d/%d (%.2f), pairs median %d"
                                + " (p90 %d), CV of A median %.3f; history (30 A, then B once, t_test 0.99) says slower in %d/%d (%.2f)%n",
                        100 * effect,
                        pairedSlower,
                        runs,
                        pairedSlower / (double) runs,
                        sorted[sorted.length / 2],
                        sorted[(int) (sorted.length * 0.9)],
                        cv[cv.length / 2],
                        historySlower,
                        runs,
                        historySlower / (double) runs);
            }
        } finally {
            stop.set(true);
            for (Thread t : competitors) t.join();
        }
    }

    private record Outcome(boolean slower, int pairs, double cv) {}

    private static Outcome paired(long loop, double effect, int maxPairs, long seed) {
        PairedConfig config = new PairedConfig(List.of("a"), maxPairs, seed, true, null, null, "json", null);
        List<IterationResults> iterations = new ArrayList<>();
        List<dev.baton.core.adapter.Metrics> parsed = new ArrayList<>();
        JsonAdapter adapter = new JsonAdapter();
        for (int p = 0; p < maxPairs; p++) {
            for (int k = 0; k < 2; k++) {
                int i = 2 * p + k;
                boolean baseline = config.side(i) == PairedConfig.Side.BASELINE;
                long ns = work(baseline ? loop : Math.round(loop * (1 + effect)));
                IterationResults ir =
                        IterationResults.parse(i, adapter, "{\"loop\":{\"latency\":{\"value\":" + ns + "}}}");
                iterations.add(ir);
                parsed.add(ir.results());
            }
            if (StoppingRule.decided(
                    PairedSamples.series(PairedSamples.pairs(config, parsed)), config.minEffectOrDefault())) break;
        }
        PairedVerdict v = PairedVerdict.of(config, iterations);
        PairedSamples.Series s =
                PairedSamples.series(PairedSamples.pairs(config, parsed)).getFirst();
        return new Outcome(v.regression(), v.pairs(), sd(s.baseline()) / mean(s.baseline()));
    }

    /** Today's way: A 30 times (the history), B once, a one-sided t prediction limit at 0.99. */
    private static boolean history(long loop, double effect) {
        double[] a = new double[30];
        for (int i = 0; i < a.length; i++) a[i] = work(loop);
        double b = work(Math.round(loop * (1 + effect)));
        int n = a.length;
        double t = TDistribution.of(n - 1).inverseCumulativeProbability(0.99);
        return b > mean(a) + t * sd(a) * Math.sqrt(1 + 1.0 / n);
    }

    /** The workload: {@code n} turns of a 64-bit LCG, timed. */
    private static long work(long n) {
        long start = System.nanoTime();
        long x = 88172645463325252L;
        for (long i = 0; i < n; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        sink = x;
        return System.nanoTime() - start;
    }

    /** Spins in bursts of 1–20 ms, busy {@code share} of the time on average, at random moments. */
    private static void compete(AtomicBoolean stop, double share, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long x = 1;
        while (!stop.get()) {
            long burst = 1 + random.nextLong(20);
            long end = System.nanoTime() + burst * 1_000_000;
            while (System.nanoTime() < end) x = x * 6364136223846793005L + 1;
            try {
                Thread.sleep(Math.round(burst * (1 - share) / share));
            } catch (InterruptedException e) {
                return;
            }
        }
        sink = x;
    }

    private static double mean(double[] x) {
        return Arrays.stream(x).average().orElse(Double.NaN);
    }

    private static double sd(double[] x) {
        double m = mean(x);
        double ss = 0;
        for (double v : x) ss += (v - m) * (v - m);
        return Math.sqrt(ss / (x.length - 1));
    }
}

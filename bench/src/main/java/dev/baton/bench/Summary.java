package dev.baton.bench;

import java.util.Arrays;

/** Order statistics of a set of latency samples, in milliseconds (nearest-rank percentiles). */
record Summary(int count, double medianMs, double p90Ms, double p99Ms, double maxMs) {

    static Summary ofNanos(long[] nanos) {
        if (nanos.length == 0) return new Summary(0, 0, 0, 0, 0);
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return new Summary(
                sorted.length,
                ms(rank(sorted, 0.50)),
                ms(rank(sorted, 0.90)),
                ms(rank(sorted, 0.99)),
                ms(sorted[sorted.length - 1]));
    }

    private static long rank(long[] sorted, double q) {
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static double ms(long nanos) {
        return Math.round(nanos / 1_000.0) / 1_000.0;
    }
}

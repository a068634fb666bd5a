package dev.baton.core.adapter;

/**
 * The measure names adapters write, with their base units. {@code latency} and
 * {@code throughput} are Bencher's built-in measures (same names, same units); the others are
 * Baton's, for what the tools print beside time.
 */
public final class Measures {
    /** Time per operation, nanoseconds (Bencher's built-in {@code latency}). */
    public static final String LATENCY = "latency";
    /** Operations per second (Bencher's built-in {@code throughput}). */
    public static final String THROUGHPUT = "throughput";
    /** Bytes per second (Go's MB/s, Criterion's B/s, Google Benchmark's bytes_per_second). */
    public static final String BANDWIDTH = "bandwidth";
    /** Bytes allocated per operation (Go's B/op). */
    public static final String ALLOCATED_BYTES = "allocated-bytes";
    /** Allocations per operation (Go's allocs/op). */
    public static final String ALLOCATIONS = "allocations";

    private Measures() {}

    /**
     * Which way is better for a measure Baton knows: true when more is better (throughput,
     * bandwidth), false when less is (latency, allocated bytes, allocations), null for a measure
     * a project named itself (its direction is not known).
     */
    public static Boolean higherIsBetter(String measure) {
        if (measure == null) return null;
        return switch (measure) {
            case THROUGHPUT, BANDWIDTH -> Boolean.TRUE;
            case LATENCY, ALLOCATED_BYTES, ALLOCATIONS -> Boolean.FALSE;
            default -> null;
        };
    }
}

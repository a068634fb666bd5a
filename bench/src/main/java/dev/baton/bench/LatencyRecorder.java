package dev.baton.bench;

import java.util.Arrays;

/** Collects latency samples (nanoseconds) from many threads; bounded so a long run cannot exhaust memory. */
final class LatencyRecorder {
    private final int capacity;
    private long[] samples = new long[1024];
    private int size;
    private long dropped;

    LatencyRecorder(int capacity) {
        this.capacity = capacity;
    }

    synchronized void record(long nanos) {
        if (size == capacity) {
            dropped++;
            return;
        }
        if (size == samples.length) samples = Arrays.copyOf(samples, Math.min(capacity, samples.length * 2));
        samples[size++] = nanos;
    }

    synchronized long[] snapshot() {
        return Arrays.copyOf(samples, size);
    }

    synchronized long dropped() {
        return dropped;
    }
}

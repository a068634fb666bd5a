package dev.baton.core.paired;

import dev.baton.core.adapter.Measures;
import java.util.Set;

/**
 * Which way is better for a measure. Baton's thresholds judge both sides and model no direction;
 * a paired verdict must say "faster" or "slower", so it needs one: rates ({@code throughput},
 * {@code bandwidth}) are better higher, everything else (times, bytes, allocations and the
 * measures a project names itself) better lower.
 */
public enum Direction {
    LOWER_IS_BETTER,
    HIGHER_IS_BETTER;

    private static final Set<String> HIGHER = Set.of(Measures.THROUGHPUT, Measures.BANDWIDTH);

    public static Direction of(String measure) {
        return HIGHER.contains(measure) ? HIGHER_IS_BETTER : LOWER_IS_BETTER;
    }

    public String wireName() {
        return this == LOWER_IS_BETTER ? "lower_is_better" : "higher_is_better";
    }
}

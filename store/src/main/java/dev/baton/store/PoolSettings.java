package dev.baton.store;

import java.time.Duration;
import java.util.Map;

/**
 * What an operator sets on a pool (issue 43): its spec, the labels its runners report, how many
 * machines wait idle ({@code minIdle}), how many there may be at most ({@code max}), how long an
 * idle machine lives, how long a machine has to register, and the provider that starts and stops
 * them with its own settings (a JSON object).
 */
public record PoolSettings(
        long specId,
        Map<String, String> labels,
        int minIdle,
        int max,
        Duration idleTimeout,
        Duration bootTimeout,
        String provider,
        String providerConfig) {
    public static final int MAX_MACHINES = 1000;

    public PoolSettings {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        if (minIdle < 0 || max < 1 || max > MAX_MACHINES || minIdle > max)
            throw new IllegalArgumentException("a pool has 0 ≤ min_idle ≤ max, 1 ≤ max ≤ " + MAX_MACHINES);
        if (idleTimeout.isNegative() || bootTimeout.isNegative() || bootTimeout.isZero())
            throw new IllegalArgumentException("idle_timeout ≥ 0 and boot_timeout > 0");
    }
}

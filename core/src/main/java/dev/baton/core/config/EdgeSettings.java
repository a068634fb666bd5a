package dev.baton.core.config;

import java.util.Arrays;
import java.util.List;

/**
 * Who the server believes about a caller's address, and how often one runner key may open its
 * channel (issue 41). See docs/configuration.md and docs/operations.md.
 *
 * @param trustedProxies          {@code trusted_proxies}: peers whose {@code X-Forwarded-For} is believed
 *                                (empty, the default: nobody's, the TCP peer is the client)
 * @param runnerConnectsPerMinute {@code runner_connects_per_minute}: channel connects one runner key
 *                                earns back a minute (0: no limit)
 * @param runnerConnectBurst      {@code runner_connect_burst}: connects one runner key may make at once
 */
public record EdgeSettings(List<Cidr> trustedProxies, int runnerConnectsPerMinute, int runnerConnectBurst) {
    public static final int DEFAULT_RUNNER_CONNECTS_PER_MINUTE = 12;
    public static final int DEFAULT_RUNNER_CONNECT_BURST = 20;
    public static final EdgeSettings DEFAULTS =
            new EdgeSettings(List.of(), DEFAULT_RUNNER_CONNECTS_PER_MINUTE, DEFAULT_RUNNER_CONNECT_BURST);

    public EdgeSettings {
        trustedProxies = List.copyOf(trustedProxies);
        if (runnerConnectsPerMinute < 0) {
            throw new IllegalArgumentException("runner_connects_per_minute must be 0 (no limit) or more");
        }
        if (runnerConnectBurst < 1) throw new IllegalArgumentException("runner_connect_burst must be at least 1");
    }

    /** {@code trusted_proxies} as written: blocks or addresses, comma- or space-separated; "off" or "none" for none. */
    public static List<Cidr> cidrs(String text) {
        String t = text.strip();
        if (t.isEmpty() || t.equalsIgnoreCase("off") || t.equalsIgnoreCase("none")) return List.of();
        return Arrays.stream(t.split("[,\\s]+"))
                .filter(s -> !s.isEmpty())
                .map(Cidr::parse)
                .toList();
    }

    public EdgeSettings withTrustedProxies(List<Cidr> cidrs) {
        return new EdgeSettings(cidrs, runnerConnectsPerMinute, runnerConnectBurst);
    }

    public EdgeSettings withRunnerConnects(int perMinute, int burst) {
        return new EdgeSettings(trustedProxies, perMinute, burst);
    }
}

package dev.baton.server.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Transport A (docs/protocol.md, "Transport A"): the NATS broker jobs are offered on, and for
 * which specs. Without {@code natsUrl} there is no broker and every spec uses the runner channel
 * (transport B) only.
 *
 * @param natsUrl    the NATS server ({@code nats://host:4222}), or null for none
 * @param dispatchTransport "websocket" (the default) or "nats": every spec's jobs are offered on the broker
 * @param natsSpecs  {@code nats_specs}: the slugs of the specs whose jobs are, when not all
 * @param leaseTtl   a bound lease lives this long without a heartbeat ({@code lease_ttl}, seed 003: 120 s)
 */
public record BrokerSettings(String natsUrl, String dispatchTransport, Set<String> natsSpecs, Duration leaseTtl) {
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(120);
    public static final BrokerSettings NONE = new BrokerSettings(null, "websocket", Set.of(), DEFAULT_LEASE_TTL);

    public BrokerSettings {
        natsSpecs = Set.copyOf(natsSpecs);
        dispatchTransport = dispatchTransport == null ? "websocket" : dispatchTransport.strip();
        boolean allSpecs = allSpecs(dispatchTransport);
        if (leaseTtl == null || leaseTtl.toSeconds() < 2) throw new IllegalArgumentException("lease_ttl must be at least 2 seconds");
        if (natsUrl == null && (allSpecs || !natsSpecs.isEmpty())) {
            throw new IllegalArgumentException("dispatch_transport nats and nats_specs need nats_url");
        }
    }

    /** Every spec's jobs are offered on the broker. */
    public boolean allSpecs() {
        return allSpecs(dispatchTransport);
    }

    public boolean enabled() {
        return natsUrl != null;
    }

    /** Whether jobs of the spec with this slug are offered on the broker. */
    public boolean offers(String specSlug) {
        return enabled() && (allSpecs() || natsSpecs.contains(specSlug));
    }

    /** Seed 003's ratio: a heartbeat every sixth of the lease's life (20 s for 120 s). */
    public Duration heartbeatInterval() {
        return leaseTtl.dividedBy(6);
    }

    private static boolean allSpecs(String transport) {
        return switch (transport) {
            case "websocket" -> false;
            case "nats" -> true;
            default -> throw new IllegalArgumentException("dispatch_transport must be 'websocket' or 'nats', not '" + transport + "'");
        };
    }

    /** {@code nats_specs}: spec slugs separated by commas. */
    public static Set<String> slugs(String list) {
        return Arrays.stream(list.split(",")).map(String::strip).filter(s -> !s.isEmpty()).collect(Collectors.toUnmodifiableSet());
    }
}

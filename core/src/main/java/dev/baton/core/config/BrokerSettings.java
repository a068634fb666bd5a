package dev.baton.core.config;

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
 * @param natsCredentials {@code nats_credentials}: a file with the server's own NATS credentials (a
 *                   {@code .creds} file, user JWT and nkey seed, or an nkey seed alone), or null
 *                   when the URL's userinfo (or nothing) authenticates
 */
public record BrokerSettings(
        String natsUrl, String dispatchTransport, Set<String> natsSpecs, Duration leaseTtl, String natsCredentials) {
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(120);
    public static final BrokerSettings NONE = new BrokerSettings(null, "websocket", Set.of(), DEFAULT_LEASE_TTL);

    /** Without a credentials file: the URL's userinfo, if any, authenticates. */
    public BrokerSettings(String natsUrl, String dispatchTransport, Set<String> natsSpecs, Duration leaseTtl) {
        this(natsUrl, dispatchTransport, natsSpecs, leaseTtl, null);
    }

    public BrokerSettings {
        natsSpecs = Set.copyOf(natsSpecs);
        dispatchTransport = dispatchTransport == null ? "websocket" : dispatchTransport.strip();
        boolean allSpecs = allSpecs(dispatchTransport);
        if (leaseTtl == null || leaseTtl.toSeconds() < 2)
            throw new IllegalArgumentException("lease_ttl must be at least 2 seconds");
        if (natsUrl == null && (allSpecs || !natsSpecs.isEmpty())) {
            throw new IllegalArgumentException("dispatch_transport nats and nats_specs need nats_url");
        }
        if (natsCredentials != null && natsCredentials.isBlank()) natsCredentials = null;
        if (natsCredentials != null && natsUrl == null)
            throw new IllegalArgumentException("nats_credentials needs nats_url");
    }

    /** {@code natsUrl} fit for a log line: a password in its userinfo is a credential, so the userinfo is left out. */
    public String natsUrlForLogs() {
        return redactUserinfo(natsUrl);
    }

    /** {@code nats://user:secret@host:4222} → {@code nats://***@host:4222}, for each URL of a comma-separated list. */
    public static String redactUserinfo(String url) {
        return url == null ? null : url.replaceAll("//[^@/,]*@", "//***@");
    }

    /** Never the URL's password (a record's own toString would print it wherever the config is logged). */
    @Override
    public String toString() {
        return "BrokerSettings[natsUrl=" + natsUrlForLogs() + ", dispatchTransport=" + dispatchTransport
                + ", natsSpecs=" + natsSpecs + ", leaseTtl=" + leaseTtl + ", natsCredentials=" + natsCredentials + "]";
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
            default ->
                throw new IllegalArgumentException(
                        "dispatch_transport must be 'websocket' or 'nats', not '" + transport + "'");
        };
    }

    /** {@code nats_specs}: spec slugs separated by commas. */
    public static Set<String> slugs(String list) {
        return Arrays.stream(list.split(","))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
    }
}

package dev.baton.web.http;

import dev.baton.core.config.Cidr;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The address of the client behind a request (issue 41): the TCP peer, unless the peer is one of
 * {@code trusted_proxies}; then {@code X-Forwarded-For} is read from the right, each trusted hop
 * skipped, and the first address that is not a trusted proxy is the client. Entries left of it
 * were written by whoever the client is and are never believed, so a client cannot choose its own
 * address by sending the header: an untrusted peer's header is ignored altogether. The one place
 * the server decides this; the per-IP limit of the unclaimed tier, the audit log and the runner
 * channel all ask here (Javalin's {@code ctx.ip()} is wired to {@link #of}).
 */
public final class ClientAddress {
    public static final String FORWARDED_FOR = "X-Forwarded-For";

    private final List<Cidr> trustedProxies;

    public ClientAddress(List<Cidr> trustedProxies) {
        this.trustedProxies = List.copyOf(trustedProxies);
    }

    /**
     * @param peer         the TCP peer's address, as the servlet container gives it
     * @param forwardedFor every {@code X-Forwarded-For} header line, in the order received
     */
    public String of(String peer, List<String> forwardedFor) {
        if (trustedProxies.isEmpty() || !trusted(peer)) return peer;
        List<String> hops = new ArrayList<>();
        for (String line : forwardedFor) {
            for (String hop : line.split(",")) if (!hop.isBlank()) hops.add(hop.strip());
        }
        Collections.reverse(hops);
        String client = peer;
        for (String hop : hops) {
            Optional<InetAddress> address = Cidr.address(bare(hop));
            // A hop a trusted proxy wrote that is no address: the last trusted hop is all that is known.
            if (address.isEmpty()) return client;
            client = address.get().getHostAddress();
            if (!trusted(address.get())) return client;
        }
        // Every hop was a trusted proxy: the first of them is the closest to the client that is known.
        return client;
    }

    /** True when {@code peer} is inside one of the trusted blocks. */
    public boolean trusted(String peer) {
        return Cidr.address(bare(peer)).map(this::trusted).orElse(false);
    }

    private boolean trusted(InetAddress address) {
        for (Cidr cidr : trustedProxies) if (cidr.contains(address)) return true;
        return false;
    }

    /** {@code [2001:db8::1]:443} → {@code 2001:db8::1}, {@code 10.1.2.3:5000} → {@code 10.1.2.3}. */
    private static String bare(String hop) {
        String h = hop.strip();
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? h : h.substring(1, end);
        }
        int colon = h.indexOf(':');
        if (colon > 0 && colon == h.lastIndexOf(':') && h.indexOf('.') > 0) return h.substring(0, colon);
        return h;
    }
}

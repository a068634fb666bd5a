package dev.baton.web.http;

import java.util.function.Supplier;

/**
 * A part of the server that acts once HTTP listens, when the bound port is known: the log routes
 * of a node in a cluster write the address the other nodes reach this one at into its node row
 * (live logs across nodes, docs/decisions/0016-cross-node-live.md). BatonServer calls it on every
 * route module that implements it, right after Jetty started.
 */
public interface AfterHttpStart {
    /**
     * {@code advertiseUrl}: the configured {@code advertise_url}, or {@code http://host:port} of
     * this process, worked out when first asked (it may look up the machine's name), so a part
     * that has no use for it (a single node) costs nothing.
     */
    void afterHttpStart(Supplier<String> advertiseUrl);
}

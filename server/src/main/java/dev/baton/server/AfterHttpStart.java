package dev.baton.server;

/**
 * A part of the server that acts once HTTP listens, when the bound port is known: the runner
 * channel writes the address the other nodes reach this one at into its node row (live logs
 * across nodes, docs/decisions/0016-cross-node-live.md). BatonServer calls it on every module and
 * job-event listener that implements it, right after Jetty started.
 */
public interface AfterHttpStart {
    /** {@code advertiseUrl}: the configured {@code advertise_url}, or {@code http://host:port} of this process. */
    void afterHttpStart(String advertiseUrl);
}

package dev.baton.broker;

import dev.baton.core.metrics.BatonMetrics;
import io.micrometer.core.instrument.Counter;

/**
 * Transport A's counters on /metrics: {@code baton_broker_leases_total{event}} with event
 * published, acked (bound by an AckLease), redelivered (an AckLease for a lease already bound:
 * the broker delivered it again), stale (a message answered StaleLease), revoked (no AckLease in
 * the window), expired (heartbeats stopped); {@code baton_broker_connected} (1 or 0); and
 * {@code baton_broker_jetstream_available} (1 or 0: connected is not enough, a broker may lose JetStream).
 */
final class BrokerMetrics {
    private final Counter published;
    private final Counter acked;
    private final Counter redelivered;
    private final Counter stale;
    private final Counter revoked;
    private final Counter expired;

    BrokerMetrics(BatonMetrics metrics, NatsBroker broker) {
        var registry = metrics.registry();
        published = counter(registry, "published");
        acked = counter(registry, "acked");
        redelivered = counter(registry, "redelivered");
        stale = counter(registry, "stale");
        revoked = counter(registry, "revoked");
        expired = counter(registry, "expired");
        metrics.gauge(
                "baton.broker.connected",
                "1 while the server is connected to the NATS broker (transport A)",
                () -> broker.connected() ? 1 : 0);
        metrics.gauge(
                "baton.broker.jetstream.available",
                "1 while JetStream answers (a publish or $JS.API.INFO succeeded last); 0 while offers cannot be published",
                () -> broker.jetStream().available() ? 1 : 0);
    }

    private static Counter counter(io.micrometer.core.instrument.MeterRegistry registry, String event) {
        return Counter.builder("baton.broker.leases")
                .description("Transport A leases by event")
                .tag("event", event)
                .register(registry);
    }

    void published(int n) {
        if (n > 0) published.increment(n);
    }

    void acked() {
        acked.increment();
    }

    void redelivered() {
        redelivered.increment();
    }

    void stale() {
        stale.increment();
    }

    void revoked(int n) {
        revoked.increment(n);
    }

    void expired() {
        expired.increment();
    }
}

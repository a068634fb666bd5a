package dev.baton.store;

/**
 * How an attempt reached its runner: {@code websocket} (the runner channel, transport B) or
 * {@code nats} (a lease offered on the broker and bound by the runner's AckLease, transport A).
 * Derived, not stored: an attempt is transport A's exactly when its lease is an offer some runner
 * bound (docs/protocol.md, "Transport A").
 */
public final class AttemptTransport {
    public static final String WEBSOCKET = "websocket";
    public static final String NATS = "nats";

    private AttemptTransport() {}

    public static String of(Store store, Attempt attempt) {
        if (attempt.lease() == null) return WEBSOCKET;
        return store.leaseOffers()
                        .find(attempt.lease())
                        .filter(o -> o.runnerId() != null)
                        .isPresent()
                ? NATS
                : WEBSOCKET;
    }
}

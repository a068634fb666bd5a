package dev.baton.ojs;

import java.util.Locale;
import java.util.Set;

/**
 * The eight OJS job states (docs/ojs.md maps them onto Baton's job lifecycle). Terminal states
 * accept no further transition: ack, nack and cancel of a terminal job are 409 conflict.
 */
enum OjsState {
    PENDING,
    SCHEDULED,
    AVAILABLE,
    ACTIVE,
    COMPLETED,
    RETRYABLE,
    CANCELLED,
    DISCARDED;

    static final Set<OjsState> TERMINAL = Set.of(COMPLETED, CANCELLED, DISCARDED);

    String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    static OjsState of(String wire) {
        return valueOf(wire.toUpperCase(Locale.ROOT));
    }

    boolean terminal() {
        return TERMINAL.contains(this);
    }
}

package dev.baton.store;

import java.util.Locale;

/**
 * A pool machine's state (issue 43): {@code starting} (the provider was asked; its runner has not
 * registered), {@code idle} (registered, no job), {@code busy} (running its job), {@code stopping}
 * (the provider was asked to stop it), and the two ends, {@code stopped} and {@code failed}
 * (never registered within its boot timeout, or the provider's start failed).
 */
public enum PoolMachineState {
    STARTING,
    IDLE,
    BUSY,
    STOPPING,
    STOPPED,
    FAILED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static PoolMachineState of(String wire) {
        return valueOf(wire.toUpperCase(Locale.ROOT));
    }

    public boolean ended() {
        return this == STOPPED || this == FAILED;
    }
}

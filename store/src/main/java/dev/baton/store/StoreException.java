package dev.baton.store;

/** A store operation refused for a reason the caller can report (unique slug taken, spec in use). */
public final class StoreException extends RuntimeException {
    public enum Reason {
        CONFLICT,
        NOT_FOUND,
        IN_USE
    }

    private final Reason reason;

    public StoreException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}

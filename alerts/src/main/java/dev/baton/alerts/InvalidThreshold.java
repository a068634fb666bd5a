package dev.baton.alerts;

/** A threshold that cannot be kept: which field, and why in words a user can act on. */
public final class InvalidThreshold extends RuntimeException {
    private final String field;

    public InvalidThreshold(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}

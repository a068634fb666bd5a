package dev.baton.protocol.message;

/** A message that is not valid JSON, has no known event, or carries an invalid value. */
public final class InvalidMessageException extends RuntimeException {
    public InvalidMessageException(String reason) {
        super(reason);
    }
}

package dev.baton.runner.update;

/** A self-update that was not installed; the message says why (download, checksum, replace). */
public final class UpdateException extends Exception {
    public UpdateException(String message) {
        super(message);
    }

    public UpdateException(String message, Throwable cause) {
        super(message, cause);
    }
}

package dev.baton.runner.executor;

/** The job cannot run on this runner (image pull denied, disk full, unsupported image); it goes to another runner. */
public final class DeclinedException extends Exception {
    public DeclinedException(String reason) {
        super(reason);
    }

    public DeclinedException(String reason, Throwable cause) {
        super(reason, cause);
    }
}

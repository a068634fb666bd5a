package dev.baton.runner.oci;

/** The registry refused the pull token (401/403) or does not have the image (404). */
public final class PullDeniedException extends Exception {
    public PullDeniedException(String message) {
        super(message);
    }
}

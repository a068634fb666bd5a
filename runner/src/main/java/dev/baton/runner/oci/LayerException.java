package dev.baton.runner.oci;

/** A layer or image that Baton refuses to unpack (escape attempt, unsupported format). */
public final class LayerException extends Exception {
    public LayerException(String message) {
        super(message);
    }
}

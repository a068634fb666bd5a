package dev.baton.cli.image;

/** The image to push is malformed, ambiguous or incomplete; the message says what to fix. */
public final class ImageSourceException extends RuntimeException {
    public ImageSourceException(String message) {
        super(message);
    }
}

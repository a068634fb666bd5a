package dev.baton.cli.image;

/** The registry refused a request or could not be reached; the message carries its error. */
public final class RegistryClientException extends RuntimeException {
    public RegistryClientException(String message) {
        super(message);
    }
}

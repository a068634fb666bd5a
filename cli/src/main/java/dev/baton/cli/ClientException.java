package dev.baton.cli;

/** A request the server refused (its error code and message) or could not be made. */
final class ClientException extends RuntimeException {
    ClientException(String message) {
        super(message);
    }
}

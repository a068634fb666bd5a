package dev.baton.cli;

/**
 * The server could not be reached or stopped answering mid-request. Kept apart from refusals so
 * that {@code run --wait} can retry it for a while and then say it lost the server (exit 6).
 */
final class ServerUnreachableException extends ClientException {
    ServerUnreachableException(String message) {
        super(message);
    }
}

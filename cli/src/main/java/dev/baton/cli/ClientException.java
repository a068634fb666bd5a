package dev.baton.cli;

/**
 * A request the server refused (its HTTP status, error code and message) or one that could not be
 * made (status 0). The message is the one line the user sees after {@code baton: }.
 */
class ClientException extends RuntimeException {
    private final int status;
    private final String code;

    ClientException(String message) {
        this(0, null, message);
    }

    ClientException(int status, String code, String message) {
        super(message);
        this.status = status;
        this.code = code;
    }

    /** The HTTP status the server answered, or 0 when there was no answer. */
    int status() {
        return status;
    }

    /** The server's stable error code ({@code slug_taken}, …), or null when there was no answer. */
    String code() {
        return code;
    }
}

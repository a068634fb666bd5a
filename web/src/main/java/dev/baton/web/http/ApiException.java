package dev.baton.web.http;

/**
 * Ends a request with an {@link ApiError}. Thrown before anything is written, so a rejected
 * request leaves no trace in the store.
 */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String code;
    private final String field;

    public ApiException(int status, String code, String message, String field) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.field = field;
    }

    public ApiException(int status, String code, String message) {
        this(status, code, message, null);
    }

    public static ApiException badRequest(String code, String message) {
        return new ApiException(400, code, message);
    }

    /** A single field is wrong: {@code invalid_field} with the field's name. */
    public static ApiException invalidField(String field, String message) {
        return new ApiException(400, "invalid_field", message, field);
    }

    public static ApiException missingField(String field) {
        return new ApiException(400, "missing_field", field + " is required", field);
    }

    public static ApiException notFound(String code, String message) {
        return new ApiException(404, code, message);
    }

    public static ApiException conflict(String code, String message) {
        return new ApiException(409, code, message);
    }

    public int status() {
        return status;
    }

    public ApiError error() {
        return new ApiError(code, getMessage(), field);
    }
}

package dev.baton.ojs;

/**
 * A refused OJS request, answered in the OJS error shape
 * ({@code {"error": {"code", "message", "retryable", "type", "hint", "docs_url", "request_id"}}}).
 * Thrown before anything is written, so a refused request changes nothing.
 */
final class OjsException extends RuntimeException {
    final int status;
    final String code;
    final String type;

    OjsException(int status, String code, String type, String message) {
        super(message);
        this.status = status;
        this.code = code;
        this.type = type;
    }

    static OjsException invalid(String message) {
        return new OjsException(400, "invalid_request", "validation_error", message);
    }

    static OjsException invalidPayload(String message) {
        return new OjsException(400, "invalid_payload", "validation_error", message);
    }

    /** A well-formed envelope whose values break a rule (retry policy bounds). */
    static OjsException unprocessable(String message) {
        return new OjsException(422, "invalid_request", "validation_error", message);
    }

    static OjsException notFound(String what) {
        return new OjsException(404, "not_found", "not_found", what + " not found");
    }

    static OjsException conflict(String message) {
        return new OjsException(409, "conflict", "conflict", message);
    }

    static OjsException duplicate(String message) {
        return new OjsException(409, "duplicate", "conflict", message);
    }

    /** A user's API token: known, but the OJS door is server-wide. */
    static OjsException forbidden(String message) {
        return new OjsException(403, "forbidden", "authorization_error", message);
    }

    /** No admin token, or a wrong one: the OJS door is guarded like the rest of the API. */
    static OjsException unauthorized(String message) {
        return new OjsException(401, "unauthorized", "authentication_error", message);
    }

    /** A registered worker that is terminated (its heartbeat timed out, or it said so; issue 47) registers again. */
    static OjsException workerTerminated(String id) {
        return new OjsException(
                409,
                "worker_terminated",
                "conflict",
                "worker " + id
                        + " is terminated (its heartbeat timed out, or it reported terminated);"
                        + " register again with POST /ojs/v1/workers/register");
    }
}

package dev.baton.registry;

import java.util.Map;

/**
 * A request the registry refuses, rendered as {@code {"errors":[{"code","message","detail"}]}}
 * with {@link #status()} (usually the code's own status; 413 and 416 where the specification asks).
 */
public final class RegistryException extends RuntimeException {
    private final ErrorCode code;
    private final int status;
    private final Map<String, Object> detail;

    public RegistryException(ErrorCode code, String message) {
        this(code, code.status(), message, Map.of());
    }

    public RegistryException(ErrorCode code, String message, Map<String, Object> detail) {
        this(code, code.status(), message, detail);
    }

    public RegistryException(ErrorCode code, int status, String message, Map<String, Object> detail) {
        super(message);
        this.code = code;
        this.status = status;
        this.detail = Map.copyOf(detail);
    }

    public ErrorCode code() {
        return code;
    }

    public int status() {
        return status;
    }

    public Map<String, Object> detail() {
        return detail;
    }
}

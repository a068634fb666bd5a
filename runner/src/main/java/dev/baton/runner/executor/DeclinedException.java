package dev.baton.runner.executor;

import dev.baton.protocol.message.DeclineCode;

/**
 * The job cannot run on this runner (image pull denied, disk full, unsupported image); it goes to
 * another runner. {@link #code()} is what the server is told beside the message (docs/protocol.md).
 */
public final class DeclinedException extends Exception {
    private final DeclineCode code;

    public DeclinedException(DeclineCode code, String reason) {
        super(reason);
        this.code = code;
    }

    public DeclinedException(DeclineCode code, String reason, Throwable cause) {
        super(reason, cause);
        this.code = code;
    }

    public DeclinedException(String reason) {
        this(DeclineCode.OTHER, reason);
    }

    public DeclineCode code() {
        return code;
    }
}

package dev.baton.store;

/** How an attempt ended; stored as the stable integer {@link #code()}. */
public enum AttemptOutcome {
    COMPLETED(0),
    FAILED(1),
    CANCELED(2),
    /** The runner said it cannot run the job. */
    DECLINED(3),
    /** The runner neither declined nor started within the acceptance window. */
    ACCEPT_TIMEOUT(4),
    /** The runner's connection died before it started. */
    LOST_BEFORE_START(5),
    /** The runner went silent after starting (heartbeat/disconnect timeout). */
    LOST(6);

    private final int code;

    AttemptOutcome(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static AttemptOutcome ofCode(int code) {
        for (AttemptOutcome o : values()) {
            if (o.code == code) return o;
        }
        throw new IllegalArgumentException("unknown attempt outcome " + code);
    }
}

package dev.baton.store;

import java.util.Locale;

/** Why a failed attempt was not retried (issue 41), shown beside it as {@code not_retried}. */
public enum NotRetried {
    /** It exited with one of the policy's {@code final_exit_codes}. */
    FINAL_EXIT_CODE,
    /** Its kind ({@link FailureKind}) is not in the policy's {@code on}. */
    NOT_IN_RETRY_ON,
    /** It was the last attempt the policy allows ({@code max_attempts}; 1 without a policy). */
    ATTEMPTS_EXHAUSTED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static NotRetried parse(String wire) {
        if (wire == null) return null;
        for (NotRetried n : values()) {
            if (n.wireName().equals(wire)) return n;
        }
        return null;
    }
}

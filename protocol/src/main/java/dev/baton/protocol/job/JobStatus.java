package dev.baton.protocol.job;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;

/**
 * Job lifecycle states, stored as the stable integers of seed 001 (0–5) plus {@code processed}
 * (6), which seed 000 adds once the adapter has parsed the output.
 */
public enum JobStatus {
    PENDING(0),
    CLAIMED(1),
    RUNNING(2),
    COMPLETED(3),
    FAILED(4),
    CANCELED(5),
    PROCESSED(6);

    private final int code;

    JobStatus(int code) {
        this.code = code;
    }

    /** The integer stored in the database; never renumber. */
    public int code() {
        return code;
    }

    public static JobStatus ofCode(int code) {
        return Arrays.stream(values())
                .filter(s -> s.code == code)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown job status code " + code));
    }

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static JobStatus parse(String text) {
        for (JobStatus s : values()) {
            if (s.wireName().equals(text)) return s;
        }
        throw new IllegalArgumentException("unknown job status '" + text + "'");
    }

    /** Claimed or running: holds a lease and counts against concurrency limits. */
    public boolean inFlight() {
        return this == CLAIMED || this == RUNNING;
    }

    /** No transition leaves these states. */
    public boolean terminal() {
        return this == PROCESSED || this == CANCELED;
    }
}

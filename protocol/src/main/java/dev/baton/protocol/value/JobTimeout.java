package dev.baton.protocol.value;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Maximum execution time of a job in seconds (seed 001: u32, default 3600). Baton caps it at
 * seven days so a deadline computed from it never overflows and a forgotten job still ends.
 */
public record JobTimeout(@JsonValue int seconds) {
    public static final int MIN = 1;
    public static final int MAX = 7 * 24 * 3600;
    public static final JobTimeout DEFAULT = new JobTimeout(3600);

    public JobTimeout {
        Ranges.check("timeout", seconds, MIN, MAX);
    }

    @JsonCreator
    public static JobTimeout of(int seconds) {
        return new JobTimeout(seconds);
    }
}

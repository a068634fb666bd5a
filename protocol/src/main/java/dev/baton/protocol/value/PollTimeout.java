package dev.baton.protocol.value;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** How long an idle runner's `ready` waits for a job before `no_job` (seed 000: 1–900 s). */
public record PollTimeout(@JsonValue int seconds) {
    public static final int MIN = 1;
    public static final int MAX = 900;

    public PollTimeout {
        Ranges.check("poll_timeout", seconds, MIN, MAX);
    }

    @JsonCreator
    public static PollTimeout of(int seconds) {
        return new PollTimeout(seconds);
    }
}

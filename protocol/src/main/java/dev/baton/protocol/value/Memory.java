package dev.baton.protocol.value;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Memory of a spec in bytes (seed 001: 1 to i64::MAX). */
public record Memory(@JsonValue long bytes) {
    public static final long MIN = 1L;
    public static final long MAX = Long.MAX_VALUE;

    public Memory {
        Ranges.check("memory", bytes, MIN, MAX);
    }

    @JsonCreator
    public static Memory of(long bytes) {
        return new Memory(bytes);
    }
}

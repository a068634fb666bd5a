package dev.baton.protocol.value;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Disk of a spec in bytes (seed 001: 1 to i64::MAX). */
public record Disk(@JsonValue long bytes) {
    public static final long MIN = 1L;
    public static final long MAX = Long.MAX_VALUE;

    public Disk {
        Ranges.check("disk", bytes, MIN, MAX);
    }

    @JsonCreator
    public static Disk of(long bytes) {
        return new Disk(bytes);
    }
}

package dev.baton.protocol.value;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Number of CPUs of a spec (seed 001: 1 to i32::MAX). */
public record Cpu(@JsonValue int count) {
    public static final int MIN = 1;
    public static final int MAX = Integer.MAX_VALUE;

    public Cpu {
        Ranges.check("cpu", count, MIN, MAX);
    }

    @JsonCreator
    public static Cpu of(int count) {
        return new Cpu(count);
    }
}

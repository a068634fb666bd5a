package dev.baton.protocol.id;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;
import java.util.UUID;

/** Public identifier of a runner; the database's integer key never leaves the server. */
public record RunnerUuid(UUID value) {
    public RunnerUuid {
        Objects.requireNonNull(value, "runner uuid");
    }

    public static RunnerUuid random() {
        return new RunnerUuid(UUID.randomUUID());
    }

    @JsonCreator
    public static RunnerUuid parse(String text) {
        return new RunnerUuid(Uuids.parse("runner uuid", text));
    }

    @JsonValue
    @Override
    public String toString() {
        return value.toString();
    }
}

package dev.baton.protocol.id;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;
import java.util.UUID;

/** Public identifier of a spec; the database's integer key never leaves the server. */
public record SpecUuid(UUID value) {
    public SpecUuid {
        Objects.requireNonNull(value, "spec uuid");
    }

    public static SpecUuid random() {
        return new SpecUuid(UUID.randomUUID());
    }

    @JsonCreator
    public static SpecUuid parse(String text) {
        return new SpecUuid(Uuids.parse("spec uuid", text));
    }

    @JsonValue
    @Override
    public String toString() {
        return value.toString();
    }
}

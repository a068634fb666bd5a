package dev.baton.protocol.id;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;
import java.util.UUID;

/** Public identifier of a project; the database's integer key never leaves the server. */
public record ProjectUuid(UUID value) {
    public ProjectUuid {
        Objects.requireNonNull(value, "project uuid");
    }

    public static ProjectUuid random() {
        return new ProjectUuid(UUID.randomUUID());
    }

    @JsonCreator
    public static ProjectUuid parse(String text) {
        return new ProjectUuid(Uuids.parse("project uuid", text));
    }

    @JsonValue
    @Override
    public String toString() {
        return value.toString();
    }
}

package dev.baton.protocol.id;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;
import java.util.UUID;

/** Public identifier of a user; the database's integer key never leaves the server. */
public record UserUuid(UUID value) {
    public UserUuid {
        Objects.requireNonNull(value, "user uuid");
    }

    public static UserUuid random() {
        return new UserUuid(UUID.randomUUID());
    }

    @JsonCreator
    public static UserUuid parse(String text) {
        return new UserUuid(Uuids.parse("user uuid", text));
    }

    @JsonValue
    @Override
    public String toString() {
        return value.toString();
    }
}

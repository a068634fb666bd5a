package dev.baton.protocol.id;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;
import java.util.UUID;

/** Public identifier of an API token; the database's integer key never leaves the server. */
public record TokenUuid(UUID value) {
    public TokenUuid {
        Objects.requireNonNull(value, "api token uuid");
    }

    public static TokenUuid random() {
        return new TokenUuid(UUID.randomUUID());
    }

    @JsonCreator
    public static TokenUuid parse(String text) {
        return new TokenUuid(Uuids.parse("api token uuid", text));
    }

    @JsonValue
    @Override
    public String toString() {
        return value.toString();
    }
}

package dev.baton.protocol.id;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;
import java.util.UUID;

/** Public identifier of a job; the database's integer key never leaves the server. */
public record JobUuid(UUID value) {
    public JobUuid {
        Objects.requireNonNull(value, "job uuid");
    }

    public static JobUuid random() {
        return new JobUuid(UUID.randomUUID());
    }

    @JsonCreator
    public static JobUuid parse(String text) {
        return new JobUuid(Uuids.parse("job uuid", text));
    }

    @JsonValue
    @Override
    public String toString() {
        return value.toString();
    }
}

package dev.baton.protocol.id;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;
import java.util.UUID;

/** Public identifier of a organization; the database's integer key never leaves the server. */
public record OrganizationUuid(UUID value) {
    public OrganizationUuid {
        Objects.requireNonNull(value, "organization uuid");
    }

    public static OrganizationUuid random() {
        return new OrganizationUuid(UUID.randomUUID());
    }

    @JsonCreator
    public static OrganizationUuid parse(String text) {
        return new OrganizationUuid(Uuids.parse("organization uuid", text));
    }

    @JsonValue
    @Override
    public String toString() {
        return value.toString();
    }
}

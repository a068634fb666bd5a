package dev.baton.protocol.id;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;
import java.util.UUID;

/** Public identifier of a report; the database's integer key never leaves the server. */
public record ReportUuid(UUID value) {
    public ReportUuid {
        Objects.requireNonNull(value, "report uuid");
    }

    public static ReportUuid random() {
        return new ReportUuid(UUID.randomUUID());
    }

    @JsonCreator
    public static ReportUuid parse(String text) {
        return new ReportUuid(Uuids.parse("report uuid", text));
    }

    @JsonValue
    @Override
    public String toString() {
        return value.toString();
    }
}

package dev.baton.protocol.value;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Human-readable name of a runner, spec, project or organization: 1–256 characters, not blank. */
public record ResourceName(@JsonValue String value) {
    public static final int MAX_LENGTH = 256;

    public ResourceName {
        if (value == null || value.isBlank()) throw new IllegalArgumentException("name must not be empty");
        if (value.length() > MAX_LENGTH)
            throw new IllegalArgumentException("name must be at most " + MAX_LENGTH + " characters");
        if (value.chars().anyMatch(Character::isISOControl))
            throw new IllegalArgumentException("name must not contain control characters");
    }

    @JsonCreator
    public static ResourceName of(String value) {
        return new ResourceName(value);
    }

    @Override
    public String toString() {
        return value;
    }
}

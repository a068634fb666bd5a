package dev.baton.protocol.value;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** CPU architecture of a spec (seed 001). */
public enum Architecture {
    X86_64("x86_64"),
    AARCH64("aarch64");

    private final String wireName;

    Architecture(String wireName) {
        this.wireName = wireName;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }

    @JsonCreator
    public static Architecture parse(String text) {
        for (Architecture a : values()) {
            if (a.wireName.equals(text)) return a;
        }
        throw new IllegalArgumentException("architecture must be x86_64 or aarch64, got '" + text + "'");
    }

    /** The architecture of this JVM's machine, if Baton supports it. */
    public static java.util.Optional<Architecture> ofHost() {
        return switch (System.getProperty("os.arch", "")) {
            case "amd64", "x86_64" -> java.util.Optional.of(X86_64);
            case "aarch64", "arm64" -> java.util.Optional.of(AARCH64);
            default -> java.util.Optional.empty();
        };
    }
}

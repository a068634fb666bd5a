package dev.baton.protocol.message;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Which of a workload's output streams a live log chunk comes from. */
public enum LogStream {
    STDOUT("stdout"),
    STDERR("stderr");

    private final String wireName;

    LogStream(String wireName) {
        this.wireName = wireName;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }

    @JsonCreator
    public static LogStream parse(String text) {
        for (LogStream s : values()) {
            if (s.wireName.equals(text)) return s;
        }
        throw new IllegalArgumentException(
                "stream must be \"stdout\" or \"stderr\", got " + (text == null ? "null" : "\"" + text + "\""));
    }
}

package dev.baton.protocol.message;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Worker states of seed 002 that the server can direct. */
public enum DrainState {
    /** Take jobs again. */
    RUNNING,
    /** Take no new jobs; finish the ones in flight. */
    QUIET,
    /** Take no new jobs; cancel what remains after the grace period, report it, disconnect. */
    TERMINATE;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static DrainState parse(String text) {
        return valueOf(text.toUpperCase(Locale.ROOT));
    }
}

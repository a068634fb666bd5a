package dev.baton.protocol.id;

import java.util.UUID;

/** Parsing shared by the typed ids: a clear error instead of UUID's terse one. */
final class Uuids {
    private Uuids() {}

    static UUID parse(String kind, String text) {
        if (text == null || text.length() != 36) {
            throw new IllegalArgumentException(kind + " must be a UUID, got " + describe(text));
        }
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(kind + " must be a UUID, got " + describe(text));
        }
    }

    /** True when the text has the shape of a UUID, so a path parameter can be told from a slug. */
    static boolean looksLikeUuid(String text) {
        if (text == null || text.length() != 36) return false;
        try {
            UUID.fromString(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String describe(String text) {
        if (text == null) return "nothing";
        return text.length() > 40 ? "'" + text.substring(0, 40) + "…'" : "'" + text + "'";
    }
}

package dev.baton.protocol.message;

/**
 * Refuses JSON text whose strings would not survive a round trip through UTF-8: a lone UTF-16
 * surrogate, written raw or as a {@code \\uD800}-style escape. Jackson accepts both and the
 * stores write such a string as {@code ?}, so a value would change silently between the request
 * and the database. Byte-level problems (overlong forms, encoded surrogates) are caught earlier
 * by a strict UTF-8 decoder; this check works on the decoded text.
 */
public final class UnicodeCheck {
    private UnicodeCheck() {}

    /** A client-safe reason when {@code json} holds a lone surrogate, else null. */
    public static String loneSurrogate(CharSequence json) {
        int pendingHigh = -1; // position of a high surrogate that still needs its low half
        int n = json.length();
        for (int i = 0; i < n; i++) {
            char c = json.charAt(i);
            int at = i;
            if (c == '\\' && i + 1 < n) {
                char e = json.charAt(i + 1);
                if (e == 'u' && i + 5 < n) {
                    int unit = hex(json, i + 2);
                    if (unit < 0) return null; // malformed escape: the JSON parser reports it
                    c = (char) unit;
                    i += 5;
                } else {
                    // any other escape stands for a character that is not a surrogate
                    if (pendingHigh >= 0) return describe(pendingHigh);
                    i += 1;
                    continue;
                }
            }
            if (Character.isHighSurrogate(c)) {
                if (pendingHigh >= 0) return describe(pendingHigh);
                pendingHigh = at;
            } else if (Character.isLowSurrogate(c)) {
                if (pendingHigh < 0) return describe(at);
                pendingHigh = -1;
            } else if (pendingHigh >= 0) {
                return describe(pendingHigh);
            }
        }
        return pendingHigh >= 0 ? describe(pendingHigh) : null;
    }

    private static String describe(int position) {
        return "text holds a lone UTF-16 surrogate at character " + position + " (not valid Unicode)";
    }

    private static int hex(CharSequence s, int from) {
        int v = 0;
        for (int i = from; i < from + 4; i++) {
            int d = Character.digit(s.charAt(i), 16);
            if (d < 0) return -1;
            v = (v << 4) | d;
        }
        return v;
    }
}

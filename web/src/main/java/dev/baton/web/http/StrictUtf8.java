package dev.baton.web.http;

/**
 * Whether bytes are well-formed UTF-8 (Unicode, table 3-7): no overlong forms, no encoded
 * surrogates, nothing above U+10FFFF, no truncated sequence. The same verdict as the JDK's decoder
 * told to report rather than replace, without building the text (issue 13: a body is parsed from
 * its bytes; only a refused one needs the decoder's words).
 */
final class StrictUtf8 {
    private StrictUtf8() {}

    static boolean isWellFormed(byte[] bytes) {
        int i = 0;
        int n = bytes.length;
        while (i < n) {
            int b = bytes[i] & 0xFF;
            if (b < 0x80) {
                i++;
                continue;
            }
            int length;
            int low = 0x80; // the bounds of the second byte; later ones are always 80..BF
            int high = 0xBF;
            if (b >= 0xC2 && b <= 0xDF) {
                length = 2;
            } else if (b >= 0xE0 && b <= 0xEF) {
                length = 3;
                if (b == 0xE0) low = 0xA0; // overlong below
                if (b == 0xED) high = 0x9F; // surrogates above
            } else if (b >= 0xF0 && b <= 0xF4) {
                length = 4;
                if (b == 0xF0) low = 0x90; // overlong below
                if (b == 0xF4) high = 0x8F; // beyond U+10FFFF above
            } else {
                return false; // a continuation byte first, C0/C1 (overlong) or F5..FF
            }
            if (i + length > n) return false;
            int second = bytes[i + 1] & 0xFF;
            if (second < low || second > high) return false;
            for (int k = 2; k < length; k++) {
                int next = bytes[i + k] & 0xFF;
                if (next < 0x80 || next > 0xBF) return false;
            }
            i += length;
        }
        return true;
    }
}

package dev.baton.dispatch.logs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Cuts UTF-8 text into chunks of at most a given size, never inside a character, at a line end when one is near. */
final class Utf8Chunks {
    private Utf8Chunks() {}

    /** {@code [start, end)} pairs covering {@code bytes} from {@code from}. */
    static List<long[]> cut(byte[] bytes, int from, int maxBytes) {
        List<long[]> out = new ArrayList<>();
        int start = Math.max(0, from);
        while (start < bytes.length) {
            int end = Math.min(bytes.length, start + maxBytes);
            if (end < bytes.length) {
                int newline = lastNewline(bytes, start, end);
                if (newline > start + maxBytes / 2) end = newline + 1;
                else while (end > start + 1 && isContinuation(bytes[end])) end--;
            }
            out.add(new long[] {start, end});
            start = end;
        }
        return out;
    }

    /** The text of {@code [start, end)}, or what of it exists. */
    static String slice(byte[] bytes, long start, long end) {
        int s = (int) Math.min(bytes.length, Math.max(0, start));
        int e = (int) Math.min(bytes.length, Math.max(s, end));
        return new String(bytes, s, e - s, StandardCharsets.UTF_8);
    }

    static int length(String text) {
        int n = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) n += 1;
            else if (c < 0x800) n += 2;
            else if (Character.isHighSurrogate(c)
                    && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                n += 4;
                i++;
            } else n += 3;
        }
        return n;
    }

    private static int lastNewline(byte[] bytes, int start, int end) {
        for (int i = end - 1; i >= start; i--) if (bytes[i] == '\n') return i;
        return -1;
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xC0) == 0x80;
    }
}

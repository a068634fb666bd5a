package dev.baton.runner.oci;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A minimal streaming reader for the tar dialects image layers use: ustar, GNU long names
 * ({@code L}/{@code K}) and PAX headers ({@code x} for path, linkpath, size, uid, gid; {@code g}
 * ignored). The JDK has no tar support and the brief's dependency table has no archive library.
 * Sizes of long names and PAX records are bounded so a hostile layer cannot exhaust memory.
 */
final class TarReader {
    private static final int BLOCK = 512;
    private static final int MAX_META = 1 << 20;

    /** One entry; its content is read with {@link #content()} before the next call to {@link #next()}. */
    record Entry(String name, char type, long size, int mode, long uid, long gid, String linkName) {
        boolean isDirectory() {
            return type == '5';
        }

        boolean isRegular() {
            return type == '0' || type == '\0' || type == '7';
        }

        boolean isSymlink() {
            return type == '2';
        }

        boolean isHardLink() {
            return type == '1';
        }
    }

    private final InputStream in;
    private long remaining;
    private long padding;

    TarReader(InputStream in) {
        this.in = in;
    }

    /** The next entry, or null at the end of the archive. */
    Entry next() throws IOException {
        skipRest();
        String longName = null;
        String longLink = null;
        Map<String, String> pax = new HashMap<>();
        while (true) {
            byte[] header = in.readNBytes(BLOCK);
            if (header.length == 0) return null;
            if (header.length < BLOCK) throw new EOFException("truncated tar header");
            if (isZero(header)) return null;
            verifyChecksum(header);
            char type = (char) header[156];
            long size = number(header, 124, 12);
            if (type == 'L' || type == 'K' || type == 'x' || type == 'g') {
                if (size > MAX_META) throw new IOException("tar metadata entry too large: " + size);
                byte[] data = readData(size);
                switch (type) {
                    case 'L' -> longName = cString(data, 0, data.length);
                    case 'K' -> longLink = cString(data, 0, data.length);
                    case 'x' -> pax.putAll(parsePax(data));
                    default -> { } // global PAX headers carry nothing Baton uses
                }
                continue;
            }
            String name = cString(header, 0, 100);
            String prefix = cString(header, 345, 155);
            if (!prefix.isEmpty() && header[257] == 'u') name = prefix + "/" + name;
            if (longName != null) name = longName;
            if (pax.containsKey("path")) name = pax.get("path");
            String link = cString(header, 157, 100);
            if (longLink != null) link = longLink;
            if (pax.containsKey("linkpath")) link = pax.get("linkpath");
            if (pax.containsKey("size")) size = Long.parseLong(pax.get("size"));
            long uid = pax.containsKey("uid") ? Long.parseLong(pax.get("uid")) : number(header, 108, 8);
            long gid = pax.containsKey("gid") ? Long.parseLong(pax.get("gid")) : number(header, 116, 8);
            int mode = (int) number(header, 100, 8);
            if ("123456".indexOf(type) >= 0) size = 0; // links, devices, dirs, FIFOs have no content
            remaining = size;
            padding = (BLOCK - size % BLOCK) % BLOCK;
            return new Entry(name, type, size, mode, uid, gid, link);
        }
    }

    /** The current entry's content; reading past its size returns end of stream. */
    InputStream content() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                if (remaining <= 0) return -1;
                int b = in.read();
                if (b < 0) throw new EOFException("truncated tar entry");
                remaining--;
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (remaining <= 0) return -1;
                int n = in.read(b, off, (int) Math.min(len, remaining));
                if (n < 0) throw new EOFException("truncated tar entry");
                remaining -= n;
                return n;
            }
        };
    }

    private void skipRest() throws IOException {
        long skip = remaining + padding;
        while (skip > 0) {
            long n = in.skip(skip);
            if (n <= 0) {
                if (in.read() < 0) throw new EOFException("truncated tar entry");
                n = 1;
            }
            skip -= n;
        }
        remaining = 0;
        padding = 0;
    }

    private byte[] readData(long size) throws IOException {
        byte[] data = in.readNBytes((int) size);
        if (data.length < size) throw new EOFException("truncated tar metadata");
        long pad = (BLOCK - size % BLOCK) % BLOCK;
        if (in.readNBytes((int) pad).length < pad) throw new EOFException("truncated tar padding");
        return data;
    }

    private static Map<String, String> parsePax(byte[] data) throws IOException {
        Map<String, String> out = new HashMap<>();
        int pos = 0;
        while (pos < data.length) {
            int space = pos;
            while (space < data.length && data[space] != ' ') space++;
            if (space >= data.length) throw new IOException("malformed PAX header");
            int length = Integer.parseInt(new String(data, pos, space - pos, StandardCharsets.US_ASCII));
            if (length <= 0 || pos + length > data.length) throw new IOException("malformed PAX record length");
            String record = new String(data, space + 1, length - (space - pos) - 2, StandardCharsets.UTF_8);
            int eq = record.indexOf('=');
            if (eq > 0) out.put(record.substring(0, eq), record.substring(eq + 1));
            pos += length;
        }
        return out;
    }

    private static void verifyChecksum(byte[] header) throws IOException {
        long stored = number(header, 148, 8);
        long sum = 0;
        for (int i = 0; i < BLOCK; i++) sum += (i >= 148 && i < 156) ? ' ' : (header[i] & 0xff);
        if (sum != stored) throw new IOException("tar header checksum mismatch");
    }

    private static long number(byte[] b, int off, int len) throws IOException {
        if ((b[off] & 0x80) != 0) { // GNU base-256
            long v = b[off] & 0x7f;
            for (int i = 1; i < len; i++) v = (v << 8) | (b[off + i] & 0xff);
            return v;
        }
        long v = 0;
        boolean any = false;
        for (int i = off; i < off + len; i++) {
            byte c = b[i];
            if (c == 0 || c == ' ') {
                if (any) break;
                continue;
            }
            if (c < '0' || c > '7') throw new IOException("invalid octal number in tar header");
            v = (v << 3) + (c - '0');
            any = true;
        }
        return v;
    }

    private static String cString(byte[] b, int off, int len) {
        int end = off;
        while (end < off + len && b[end] != 0) end++;
        return new String(b, off, end - off, StandardCharsets.UTF_8);
    }

    private static boolean isZero(byte[] b) {
        for (byte x : b) if (x != 0) return false;
        return true;
    }
}

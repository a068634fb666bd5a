package dev.baton.runner.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

/** Writes ustar archives byte by byte, so tests can build layers with any entry — hostile ones included. */
public final class TarWriter {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    public TarWriter dir(String name, int mode) {
        return entry(name, '5', mode, new byte[0], "");
    }

    public TarWriter file(String name, int mode, byte[] content) {
        return entry(name, '0', mode, content, "");
    }

    public TarWriter file(String name, String content) {
        return file(name, 0644, content.getBytes(StandardCharsets.UTF_8));
    }

    public TarWriter symlink(String name, String target) {
        return entry(name, '2', 0777, new byte[0], target);
    }

    public TarWriter hardlink(String name, String target) {
        return entry(name, '1', 0644, new byte[0], target);
    }

    private TarWriter entry(String name, char type, int mode, byte[] content, String link) {
        byte[] h = new byte[512];
        put(h, 0, 100, name);
        put(h, 100, 8, octal(mode, 7));
        put(h, 108, 8, octal(0, 7));
        put(h, 116, 8, octal(0, 7));
        put(h, 124, 12, octal(content.length, 11));
        put(h, 136, 12, octal(1_700_000_000L, 11));
        h[156] = (byte) type;
        put(h, 157, 100, link);
        put(h, 257, 6, "ustar");
        h[262] = 0;
        put(h, 263, 2, "00");
        for (int i = 148; i < 156; i++) h[i] = ' ';
        long sum = 0;
        for (byte b : h) sum += b & 0xff;
        put(h, 148, 8, octal(sum, 6) + "\0 ");
        out.writeBytes(h);
        out.writeBytes(content);
        int pad = (512 - content.length % 512) % 512;
        out.writeBytes(new byte[pad]);
        return this;
    }

    public byte[] tar() {
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        copy.writeBytes(out.toByteArray());
        copy.writeBytes(new byte[1024]);
        return copy.toByteArray();
    }

    public byte[] tarGz() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream gz = new GZIPOutputStream(bytes)) {
            gz.write(tar());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    private static String octal(long v, int digits) {
        String s = Long.toOctalString(v);
        return "0".repeat(Math.max(0, digits - s.length())) + s;
    }

    private static void put(byte[] h, int off, int len, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > len) throw new IllegalArgumentException("too long for tar header: " + s);
        System.arraycopy(b, 0, h, off, b.length);
    }
}

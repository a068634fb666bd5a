package dev.baton.cli.image;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The entries of an uncompressed tar file (ustar, with pax and GNU long names), indexed once by
 * name so that each entry can be read later straight from the file. Symbolic and hard links
 * between entries are followed (old {@code docker save} archives link repeated layers).
 */
final class TarFiles implements ImageFiles {
    private record Entry(long offset, long size, String link) {}

    private static final int MAX_LINK_DEPTH = 16;
    private final Path file;
    private final Map<String, Entry> entries = new HashMap<>();

    private TarFiles(Path file) {
        this.file = file;
    }

    static TarFiles index(Path file) throws IOException {
        TarFiles tar = new TarFiles(file);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            InputStream in = Channels.newInputStream(channel);
            byte[] header = new byte[512];
            long position = 0;
            String longName = null;
            String paxPath = null;
            String longLink = null;
            while (true) {
                if (!readFully(in, header)) break;
                position += 512;
                if (isZero(header)) break;
                char type = (char) header[156];
                long size = octal(header, 124, 12);
                long dataOffset = position;
                long padded = (size + 511) / 512 * 512;
                String name;
                if (type == 'L' || type == 'K' || type == 'x') {
                    byte[] data = new byte[(int) Math.min(size, 1 << 20)];
                    if (!readFully(in, data)) throw new EOFException("truncated tar header data");
                    skip(in, padded - data.length);
                    position += padded;
                    String text = new String(data, StandardCharsets.UTF_8);
                    if (type == 'L') longName = trimNul(text);
                    else if (type == 'K') longLink = trimNul(text);
                    else paxPath = paxValue(text, "path");
                    continue;
                }
                name = longName != null ? longName : paxPath != null ? paxPath : ustarName(header);
                String link = longLink != null ? longLink : string(header, 157, 100);
                longName = null;
                paxPath = null;
                longLink = null;
                String normalized = normalize(name);
                if (type == '0' || type == '\0' || type == '7') {
                    tar.entries.put(normalized, new Entry(dataOffset, size, null));
                } else if (type == '2') {
                    tar.entries.put(normalized, new Entry(0, 0, normalize(parent(normalized) + link)));
                } else if (type == '1') {
                    tar.entries.put(normalized, new Entry(0, 0, normalize(link)));
                }
                skip(in, padded);
                position += padded;
            }
        }
        return tar;
    }

    @Override
    public Optional<Long> size(String path) {
        return resolve(path).map(Entry::size);
    }

    @Override
    public InputStream open(String path) throws IOException {
        Entry entry = resolve(path).orElseThrow(() -> new ImageSourceException("archive has no entry " + path));
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        channel.position(entry.offset());
        return new BoundedInputStream(Channels.newInputStream(channel), entry.size());
    }

    private Optional<Entry> resolve(String path) {
        String name = normalize(path);
        for (int i = 0; i < MAX_LINK_DEPTH; i++) {
            Entry entry = entries.get(name);
            if (entry == null) return Optional.empty();
            if (entry.link() == null) return Optional.of(entry);
            name = entry.link();
        }
        throw new ImageSourceException("too many links resolving " + path);
    }

    /** Resolves {@code ./} and {@code ../} so that links and manifest paths meet the same names. */
    static String normalize(String name) {
        Deque<String> parts = new ArrayDeque<>();
        for (String part : name.split("/")) {
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.equals("..")) {
                if (!parts.isEmpty()) parts.removeLast();
            } else {
                parts.addLast(part);
            }
        }
        return String.join("/", parts);
    }

    private static String parent(String name) {
        int slash = name.lastIndexOf('/');
        return slash < 0 ? "" : name.substring(0, slash + 1);
    }

    private static String ustarName(byte[] header) {
        String name = string(header, 0, 100);
        if ("ustar".equals(string(header, 257, 6).trim())) {
            String prefix = string(header, 345, 155);
            if (!prefix.isEmpty()) name = prefix + "/" + name;
        }
        return name;
    }

    private static String paxValue(String records, String key) {
        for (String line : records.split("\n")) {
            int space = line.indexOf(' ');
            int equals = line.indexOf('=');
            if (space > 0 && equals > space && line.substring(space + 1, equals).equals(key)) return line.substring(equals + 1);
        }
        return null;
    }

    private static long octal(byte[] header, int offset, int length) {
        if ((header[offset] & 0x80) != 0) { // base-256, for entries of 8 GiB and more
            long value = header[offset] & 0x7f;
            for (int i = 1; i < length; i++) value = (value << 8) | (header[offset + i] & 0xff);
            return value;
        }
        String text = string(header, offset, length).trim();
        return text.isEmpty() ? 0 : Long.parseLong(text, 8);
    }

    private static String string(byte[] header, int offset, int length) {
        int end = offset;
        while (end < offset + length && header[end] != 0) end++;
        return new String(header, offset, end - offset, StandardCharsets.UTF_8);
    }

    private static String trimNul(String text) {
        int nul = text.indexOf('\0');
        return nul < 0 ? text : text.substring(0, nul);
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) if (b != 0) return false;
        return true;
    }

    private static boolean readFully(InputStream in, byte[] buffer) throws IOException {
        int read = in.readNBytes(buffer, 0, buffer.length);
        if (read == 0) return false;
        if (read < buffer.length) throw new EOFException("truncated tar archive");
        return true;
    }

    private static void skip(InputStream in, long n) throws IOException {
        in.skipNBytes(n);
    }

    /** Reads at most {@code limit} bytes of the underlying stream. */
    private static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private long remaining;

        BoundedInputStream(InputStream in, long limit) {
            this.in = in;
            this.remaining = limit;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) return -1;
            int b = in.read();
            if (b >= 0) remaining--;
            return b;
        }

        @Override
        public int read(byte[] buffer, int off, int len) throws IOException {
            if (remaining <= 0) return -1;
            int n = in.read(buffer, off, (int) Math.min(len, remaining));
            if (n > 0) remaining -= n;
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}

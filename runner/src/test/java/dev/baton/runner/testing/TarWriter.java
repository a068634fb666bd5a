package dev.baton.runner.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;

/**
 * Builds tar layers with Commons Compress, so tests can make any entry — hostile ones included:
 * names with {@code ..} and absolute link targets are written as given (POSIX/PAX for long ones).
 */
public final class TarWriter {
    private record Item(String name, byte type, int mode, byte[] content, String link) {}

    private final List<Item> items = new ArrayList<>();

    public TarWriter dir(String name, int mode) {
        return entry(name, TarArchiveEntry.LF_DIR, mode, new byte[0], "");
    }

    public TarWriter file(String name, int mode, byte[] content) {
        return entry(name, TarArchiveEntry.LF_NORMAL, mode, content, "");
    }

    public TarWriter file(String name, String content) {
        return file(name, 0644, content.getBytes(StandardCharsets.UTF_8));
    }

    public TarWriter symlink(String name, String target) {
        return entry(name, TarArchiveEntry.LF_SYMLINK, 0777, new byte[0], target);
    }

    public TarWriter hardlink(String name, String target) {
        return entry(name, TarArchiveEntry.LF_LINK, 0644, new byte[0], target);
    }

    /** A regular file whose content is {@code size} zero bytes (compresses to almost nothing). */
    public TarWriter zeros(String name, int size) {
        return file(name, 0644, new byte[size]);
    }

    private TarWriter entry(String name, byte type, int mode, byte[] content, String link) {
        items.add(new Item(name, type, mode, content, link));
        return this;
    }

    public byte[] tar() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        write(bytes);
        return bytes.toByteArray();
    }

    public byte[] tarGz() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream gz = new GzipCompressorOutputStream(bytes)) {
            write(gz);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private void write(OutputStream out) {
        try {
            TarArchiveOutputStream tar = new TarArchiveOutputStream(out);
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            for (Item item : items) {
                // preserveAbsolutePath: names are written exactly as the test gives them
                TarArchiveEntry e = new TarArchiveEntry(item.name(), item.type(), true);
                e.setMode(item.mode());
                e.setSize(item.content().length);
                e.setModTime(1_700_000_000_000L);
                if (!item.link().isEmpty()) e.setLinkName(item.link());
                tar.putArchiveEntry(e);
                tar.write(item.content());
                tar.closeArchiveEntry();
            }
            tar.finish();
            tar.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

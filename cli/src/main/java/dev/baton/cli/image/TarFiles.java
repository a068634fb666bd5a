package dev.baton.cli.image;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarFile;
import org.apache.commons.io.input.BoundedInputStream;

/**
 * The entries of an uncompressed tar file, indexed once by name (Commons Compress reads the
 * headers: ustar, PAX, GNU long names) so that each entry can be read later straight from the
 * file at its data offset. Symbolic and hard links between entries are followed (old
 * {@code docker save} archives link repeated layers).
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
        try (TarFile archive = new TarFile(file)) {
            for (TarArchiveEntry e : archive.getEntries()) {
                String name = normalize(e.getName());
                if (e.isSymbolicLink()) {
                    tar.entries.put(name, new Entry(0, 0, normalize(parent(name) + e.getLinkName())));
                } else if (e.isLink()) {
                    tar.entries.put(name, new Entry(0, 0, normalize(e.getLinkName())));
                } else if (e.isFile()) {
                    tar.entries.put(name, new Entry(e.getDataOffset(), e.getSize(), null));
                }
            }
        } catch (IllegalArgumentException e) {
            throw new ImageSourceException("not a readable tar archive: " + e.getMessage());
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
        return BoundedInputStream.builder()
                .setInputStream(Channels.newInputStream(channel))
                .setMaxCount(entry.size())
                .get();
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
}

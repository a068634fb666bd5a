package dev.baton.runner.oci;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarUtils;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorInputStream;

/**
 * Applies image layers, in order, to a rootfs directory with OCI whiteouts: {@code .wh.NAME}
 * deletes NAME from the layers below, {@code .wh..wh..opq} empties its directory of what the
 * layers below put there. Nothing is ever written outside the rootfs: names with {@code ..} are
 * refused, a path whose parent is a symbolic link is refused (writing through it could land
 * anywhere on the host), hard-link targets must name a path inside the rootfs, and an existing
 * entry is replaced, never written through. Symlink targets are stored as they are — they are
 * resolved inside the container at run time, where {@code /} is the rootfs. Devices are skipped
 * (the container gets its own /dev); ownership is shifted into the user namespace's range.
 *
 * <p>Setuid and setgid bits are dropped unless the container runs in a user namespace: without
 * one, a setuid-root file from an image would sit on the host as a real setuid-root binary.
 * Unpacking stops once the layers' uncompressed tar streams, summed over all layers applied so
 * far, pass {@code maxBytes}: a small compressed layer cannot fill the disk, and tar metadata
 * (long names, PAX records) cannot take more memory than that either.
 *
 * <p>Reading tar, gzip and zstd is Commons Compress; this class holds only Baton's rules.
 */
public final class LayerUnpacker {
    private static final String WHITEOUT = ".wh.";
    private static final String OPAQUE = ".wh..wh..opq";
    private static final int SET_ID_BITS = 06000;

    private final Path root;
    private final IdShift ids;
    private final long maxBytes;
    private long unpacked;

    /**
     * How image uids/gids map to the host. {@code userNamespace}: the container's root is an
     * unprivileged host uid, so setuid/setgid bits are harmless on the host and are kept.
     * {@link #NONE} keeps ids and drops setuid/setgid.
     */
    public record IdShift(long offset, boolean chown, boolean userNamespace) {
        public static final IdShift NONE = new IdShift(0, false, false);
    }

    /** An unpacker without a size limit (tests and trusted images). */
    public LayerUnpacker(Path root, IdShift ids) {
        this(root, ids, Long.MAX_VALUE);
    }

    /** @param maxBytes most uncompressed tar bytes to read over all layers (the spec's disk size) */
    public LayerUnpacker(Path root, IdShift ids, long maxBytes) {
        if (maxBytes <= 0) throw new IllegalArgumentException("maxBytes must be positive");
        this.root = root.toAbsolutePath().normalize();
        this.ids = ids;
        this.maxBytes = maxBytes;
    }

    /** Uncompressed bytes read so far over all layers. */
    public long unpackedBytes() {
        return unpacked;
    }

    /** Applies one layer blob; {@code mediaType} says how it is compressed (gzip, zstd or none). */
    public void apply(Path blob, String mediaType) throws IOException, LayerException {
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(blob), 1 << 16);
                InputStream tar = decompress(raw, mediaType)) {
            apply(tar);
        }
    }

    private static InputStream decompress(InputStream raw, String mediaType) throws IOException, LayerException {
        if (mediaType == null || mediaType.endsWith("tar+gzip") || mediaType.endsWith(".tar.gzip")) {
            return GzipCompressorInputStream.builder()
                    .setInputStream(raw)
                    .setDecompressConcatenated(true)
                    .get();
        }
        if (mediaType.endsWith("tar+zstd")) return new ZstdCompressorInputStream(raw);
        if (mediaType.endsWith(".tar") || mediaType.endsWith("layer.v1.tar")) return raw;
        throw new LayerException("unsupported layer media type " + mediaType);
    }

    void apply(InputStream tar) throws IOException, LayerException {
        TarArchiveInputStream reader = new CheckedTarStream(new Budget(tar));
        Set<Path> createdHere = new HashSet<>();
        try {
            TarArchiveEntry e;
            while ((e = reader.getNextEntry()) != null) apply(reader, e, createdHere);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } catch (IOException e) {
            if (!overBudget(e)) throw e;
            throw new LayerException(
                    "the image unpacks to more than " + maxBytes + " bytes (the limit is the spec's disk size"
                            + " or the runner's unpack cap, whichever is smaller); unpacking stopped");
        }
    }

    private void apply(InputStream content, TarArchiveEntry e, Set<Path> createdHere)
            throws IOException, LayerException {
        String name = clean(e.getName());
        if (name.isEmpty()) return; // "./" itself
        Path target = resolve(name);
        String base = target.getFileName().toString();
        Path parent = target.getParent();
        ensureNoSymlinkParents(parent, name);
        if (base.equals(OPAQUE)) {
            if (Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) clearExcept(parent, createdHere);
            return;
        }
        if (base.startsWith(WHITEOUT)) {
            Path victim = parent.resolve(base.substring(WHITEOUT.length()));
            if (!victim.normalize().startsWith(root))
                throw new LayerException("whiteout escapes the rootfs: " + e.getName());
            deleteTree(victim);
            return;
        }
        Files.createDirectories(parent);
        byte type = e.getLinkFlag();
        if (type == TarArchiveEntry.LF_DIR) {
            if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)
                    && !Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) deleteTree(target);
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) Files.createDirectory(target);
        } else if (type == TarArchiveEntry.LF_NORMAL
                || type == TarArchiveEntry.LF_OLDNORM
                || type == TarArchiveEntry.LF_CONTIG) {
            replace(target);
            try (OutputStream out = Files.newOutputStream(
                    target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                content.transferTo(out);
            }
        } else if (type == TarArchiveEntry.LF_SYMLINK) {
            replace(target);
            Files.createSymbolicLink(target, Path.of(e.getLinkName()));
        } else if (type == TarArchiveEntry.LF_LINK) {
            String linkName = clean(e.getLinkName());
            Path source = resolve(linkName);
            ensureNoSymlinkParents(source.getParent(), e.getLinkName());
            if (!Files.exists(source, LinkOption.NOFOLLOW_LINKS))
                throw new LayerException("hard link to a missing file: " + e.getLinkName());
            replace(target);
            Files.createLink(target, source);
        } else {
            return; // devices and FIFOs: the runtime provides /dev
        }
        createdHere.add(target);
        setOwnerAndMode(target, e);
    }

    private static boolean overBudget(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof OverBudget) return true;
        return false;
    }

    /**
     * Commons Compress does not verify header checksums; a layer whose header does not add up
     * is corrupt (or crafted) and refused, as a registry-verified digest cannot vouch for a
     * header that was wrong when the image was built.
     */
    private static final class CheckedTarStream extends TarArchiveInputStream {
        CheckedTarStream(InputStream in) {
            super(in, StandardCharsets.UTF_8.name());
        }

        @Override
        protected boolean isEOFRecord(byte[] record) {
            boolean eof = super.isEOFRecord(record);
            if (!eof && !TarUtils.verifyCheckSum(record))
                throw new UncheckedIOException(new IOException("tar header checksum mismatch"));
            return eof;
        }
    }

    /** Counts the uncompressed tar stream against {@link #maxBytes}, across every layer. */
    private final class Budget extends FilterInputStream {
        Budget(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) count(1);
            return b;
        }

        @Override
        public int read(byte[] buffer, int off, int len) throws IOException {
            int n = super.read(buffer, off, len);
            if (n > 0) count(n);
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            if (skipped > 0) count(skipped);
            return skipped;
        }

        private void count(long n) throws OverBudget {
            unpacked += n;
            if (unpacked > maxBytes) throw new OverBudget();
        }
    }

    /** Thrown from inside the tar reader's reads, hence an IOException; turned into a LayerException. */
    private static final class OverBudget extends IOException {
        OverBudget() {
            super("unpack limit reached", null);
        }
    }

    /** Strips "./" and leading "/", refuses ".." anywhere. */
    private static String clean(String name) throws LayerException {
        String n = name;
        while (n.startsWith("./")) n = n.substring(2);
        while (n.startsWith("/")) n = n.substring(1);
        while (n.endsWith("/")) n = n.substring(0, n.length() - 1);
        if (n.equals(".")) return "";
        for (String segment : n.split("/")) {
            if (segment.equals("..")) throw new LayerException("layer entry escapes the rootfs: " + name);
        }
        return n;
    }

    private Path resolve(String name) throws LayerException {
        Path p = root.resolve(name).normalize();
        if (!p.startsWith(root) || p.equals(root)) throw new LayerException("layer entry escapes the rootfs: " + name);
        return p;
    }

    private void ensureNoSymlinkParents(Path dir, String name) throws LayerException {
        for (Path p = dir; p != null && !p.equals(root); p = p.getParent()) {
            if (Files.isSymbolicLink(p)) throw new LayerException("layer entry goes through a symbolic link: " + name);
        }
    }

    private static void replace(Path target) throws IOException {
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) deleteTree(target);
        else Files.deleteIfExists(target);
    }

    private void setOwnerAndMode(Path target, TarArchiveEntry e) throws IOException {
        if (ids.chown()) {
            try {
                Files.setAttribute(
                        target, "unix:uid", (int) (e.getLongUserId() + ids.offset()), LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(
                        target, "unix:gid", (int) (e.getLongGroupId() + ids.offset()), LinkOption.NOFOLLOW_LINKS);
            } catch (UnsupportedOperationException | IOException ex) {
                // not root: files stay the agent's, which the container's root maps to without a user namespace
            }
        }
        byte type = e.getLinkFlag();
        if (type != TarArchiveEntry.LF_SYMLINK && type != TarArchiveEntry.LF_LINK) {
            int mode = e.getMode() & 07777;
            if (!ids.userNamespace()) mode &= ~SET_ID_BITS;
            Files.setAttribute(target, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
        }
    }

    private void clearExcept(Path dir, Set<Path> keep) throws IOException {
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
            for (Path child : children) if (!keep.contains(child)) deleteTree(child);
        }
    }

    static void deleteTree(Path p) throws IOException {
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> children = Files.newDirectoryStream(p)) {
                for (Path child : children) deleteTree(child);
            }
        }
        try {
            Files.deleteIfExists(p);
        } catch (FileAlreadyExistsException e) {
            throw new IOException(e);
        }
    }
}

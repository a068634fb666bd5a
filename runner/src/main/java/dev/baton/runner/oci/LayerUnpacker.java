package dev.baton.runner.oci;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Applies image layers, in order, to a rootfs directory with OCI whiteouts: {@code .wh.NAME}
 * deletes NAME from the layers below, {@code .wh..wh..opq} empties its directory of what the
 * layers below put there. Nothing is ever written outside the rootfs: names with {@code ..} are
 * refused, a path whose parent is a symbolic link is refused (writing through it could land
 * anywhere on the host), hard-link targets must name a path inside the rootfs, and an existing
 * entry is replaced, never written through. Symlink targets are stored as they are — they are
 * resolved inside the container at run time, where {@code /} is the rootfs. Devices are skipped
 * (the container gets its own /dev); ownership is shifted into the user namespace's range.
 */
public final class LayerUnpacker {
    private static final String WHITEOUT = ".wh.";
    private static final String OPAQUE = ".wh..wh..opq";

    private final Path root;
    private final IdShift ids;

    /** How image uids/gids map to the host (user namespace); {@link #NONE} keeps them. */
    public record IdShift(long offset, boolean chown) {
        public static final IdShift NONE = new IdShift(0, false);
    }

    public LayerUnpacker(Path root, IdShift ids) {
        this.root = root.toAbsolutePath().normalize();
        this.ids = ids;
    }

    /** Applies one layer blob; {@code mediaType} tells whether it is gzip-compressed. */
    public void apply(Path blob, String mediaType) throws IOException, LayerException {
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(blob), 1 << 16)) {
            apply(open(raw, mediaType));
        }
    }

    private static InputStream open(InputStream raw, String mediaType) throws IOException, LayerException {
        if (mediaType == null || mediaType.endsWith("tar+gzip") || mediaType.endsWith(".tar.gzip") || mediaType.endsWith("rootfs.diff.tar.gzip")) {
            return new GZIPInputStream(raw, 1 << 16);
        }
        if (mediaType.endsWith(".tar") || mediaType.endsWith("layer.v1.tar")) return raw;
        throw new LayerException("unsupported layer media type " + mediaType);
    }

    void apply(InputStream tar) throws IOException, LayerException {
        TarReader reader = new TarReader(tar);
        Set<Path> createdHere = new HashSet<>();
        TarReader.Entry e;
        while ((e = reader.next()) != null) {
            String name = clean(e.name());
            if (name.isEmpty()) continue; // "./" itself
            Path target = resolve(name);
            String base = target.getFileName().toString();
            Path parent = target.getParent();
            ensureNoSymlinkParents(parent, name);
            if (base.equals(OPAQUE)) {
                if (Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) clearExcept(parent, createdHere);
                continue;
            }
            if (base.startsWith(WHITEOUT)) {
                Path victim = parent.resolve(base.substring(WHITEOUT.length()));
                if (!victim.normalize().startsWith(root)) throw new LayerException("whiteout escapes the rootfs: " + e.name());
                deleteTree(victim);
                continue;
            }
            Files.createDirectories(parent);
            if (e.isDirectory()) {
                if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) deleteTree(target);
                if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) Files.createDirectory(target);
            } else if (e.isRegular()) {
                replace(target);
                try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                    reader.content().transferTo(out);
                }
            } else if (e.isSymlink()) {
                replace(target);
                Files.createSymbolicLink(target, Path.of(e.linkName()));
            } else if (e.isHardLink()) {
                String linkName = clean(e.linkName());
                Path source = resolve(linkName);
                ensureNoSymlinkParents(source.getParent(), e.linkName());
                if (!Files.exists(source, LinkOption.NOFOLLOW_LINKS)) throw new LayerException("hard link to a missing file: " + e.linkName());
                replace(target);
                Files.createLink(target, source);
            } else {
                continue; // devices and FIFOs: the runtime provides /dev
            }
            createdHere.add(target);
            setOwnerAndMode(target, e);
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

    private void setOwnerAndMode(Path target, TarReader.Entry e) throws IOException {
        if (ids.chown()) {
            try {
                Files.setAttribute(target, "unix:uid", (int) (e.uid() + ids.offset()), LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(target, "unix:gid", (int) (e.gid() + ids.offset()), LinkOption.NOFOLLOW_LINKS);
            } catch (UnsupportedOperationException | IOException ex) {
                // not root: files stay the agent's, which the container's root maps to without a user namespace
            }
        }
        if (!e.isSymlink() && !e.isHardLink()) {
            Files.setAttribute(target, "unix:mode", e.mode() & 07777, LinkOption.NOFOLLOW_LINKS);
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

package dev.baton.cli.image;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * A plain directory pushed as an image: its tree is the root filesystem of a one-layer OCI image,
 * so a newcomer without Docker can build one with {@code mkdir} and {@code cp}.
 *
 * <p>The layer is deterministic, so the same directory always gives the same digest (and a second
 * push uploads nothing): entries sorted by name, mtime 0, uid/gid 0 without user or group names,
 * permission bits kept (setuid, setgid and sticky included), symlinks stored as symlinks and never
 * followed, hard links stored as separate files. Device files, FIFOs and sockets are refused (a
 * runner would refuse to create them anyway), and so is a relative symlink that climbs out of the
 * directory; an absolute symlink is fine, since it points into the image's own root.
 */
final class RootFilesystem {
    static final String LAYER_MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip";
    static final String CONFIG_MEDIA_TYPE = "application/vnd.oci.image.config.v1+json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int TYPE_DIR = 0040000;
    private static final int TYPE_FILE = 0100000;
    private static final int TYPE_SYMLINK = 0120000;

    private RootFilesystem() {}

    /** True for a directory that is not (even partly) an OCI image layout. */
    static boolean looksLikeRootFilesystem(Path dir) {
        return Files.isDirectory(dir)
                && !Files.exists(dir.resolve("oci-layout"), LinkOption.NOFOLLOW_LINKS)
                && !Files.exists(dir.resolve("index.json"), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * @param scratch where the compressed layer is written; the caller deletes it after the push
     */
    static LocalImage read(Path dir, ContainerConfig container, Path scratch) throws IOException {
        Path root = dir.toRealPath();
        Path layerFile = scratch.resolve("layer.tar.gz");
        MessageDigest compressed = sha256();
        MessageDigest uncompressed = sha256();
        try (OutputStream file = Files.newOutputStream(layerFile);
                DigestOutputStream compressedOut = new DigestOutputStream(file, compressed);
                GZIPOutputStream gzip = new GZIPOutputStream(compressedOut, 64 * 1024);
                DigestOutputStream tarOut = new DigestOutputStream(gzip, uncompressed);
                TarArchiveOutputStream tar = new TarArchiveOutputStream(tarOut, "UTF-8")) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            addChildren(tar, root, Path.of(""));
            tar.finish();
        }
        String layerDigest = hex(compressed);
        String diffId = hex(uncompressed);
        long layerSize = Files.size(layerFile);

        byte[] config = JSON.writeValueAsBytes(imageConfig(container, diffId));
        String configDigest = OciLayout.digest("sha256", config);

        ObjectNode manifest = JSON.createObjectNode();
        manifest.put("schemaVersion", 2);
        manifest.put("mediaType", ImagePusher.OCI_MANIFEST);
        manifest.set("config", descriptor(CONFIG_MEDIA_TYPE, configDigest, config.length));
        manifest.putArray("layers").add(descriptor(LAYER_MEDIA_TYPE, layerDigest, layerSize));
        byte[] manifestBytes = JSON.writeValueAsBytes(manifest);

        Map<String, LocalImage.Blob> blobs = new LinkedHashMap<>();
        blobs.put(layerDigest, new LocalImage.Blob(layerDigest, layerSize, () -> Files.newInputStream(layerFile)));
        blobs.put(
                configDigest, new LocalImage.Blob(configDigest, config.length, () -> new ByteArrayInputStream(config)));
        LocalImage.Manifest top = new LocalImage.Manifest(
                OciLayout.digest("sha256", manifestBytes), ImagePusher.OCI_MANIFEST, manifestBytes);
        return new LocalImage(blobs, List.of(top));
    }

    /** Entries of {@code dir} (whose path in the image is {@code relative}), sorted by name, depth first. */
    private static void addChildren(TarArchiveOutputStream tar, Path dir, Path relative) throws IOException {
        List<Path> children;
        try (Stream<Path> list = Files.list(dir)) {
            children = new ArrayList<>(list.toList());
        }
        // Sorted by the name's string so the order does not depend on the file system's.
        children.sort(
                (a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        for (Path child : children) {
            Path inImage = relative.resolve(child.getFileName().toString());
            String name = inImage.toString().replace('\\', '/');
            BasicFileAttributes attributes =
                    Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attributes.isSymbolicLink()) {
                String target = Files.readSymbolicLink(child).toString();
                if (!target.startsWith("/")
                        && (inImage.getParent() == null ? Path.of("") : inImage.getParent())
                                .resolve(target)
                                .normalize()
                                .startsWith("..")) {
                    throw new ImageSourceException(
                            "symlink " + name + " -> " + target + " points outside the directory; "
                                    + "make it absolute (relative to the image root) or point it inside");
                }
                TarArchiveEntry entry = entry(name, TarConstants.LF_SYMLINK, TYPE_SYMLINK | 0777);
                entry.setLinkName(target);
                tar.putArchiveEntry(entry);
                tar.closeArchiveEntry();
            } else if (attributes.isDirectory()) {
                tar.putArchiveEntry(entry(name + "/", TarConstants.LF_DIR, TYPE_DIR | permissions(child)));
                tar.closeArchiveEntry();
                addChildren(tar, child, inImage);
            } else if (attributes.isRegularFile()) {
                TarArchiveEntry entry = entry(name, TarConstants.LF_NORMAL, TYPE_FILE | permissions(child));
                entry.setSize(attributes.size());
                tar.putArchiveEntry(entry);
                try (InputStream in = Files.newInputStream(child, LinkOption.NOFOLLOW_LINKS)) {
                    in.transferTo(tar);
                }
                tar.closeArchiveEntry();
            } else {
                throw new ImageSourceException(
                        name + " is a device file, FIFO or socket; an image directory may hold only "
                                + "files, directories and symlinks (leave /dev empty: the runtime provides it)");
            }
        }
    }

    private static TarArchiveEntry entry(String name, byte type, int mode) {
        TarArchiveEntry entry = new TarArchiveEntry(name, type);
        entry.setMode(mode);
        entry.setIds(0, 0);
        entry.setUserName("");
        entry.setGroupName("");
        entry.setModTime(0L);
        return entry;
    }

    /** Permission bits including setuid, setgid and sticky, which PosixFilePermissions cannot express. */
    private static int permissions(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    private static ObjectNode imageConfig(ContainerConfig container, String diffId) {
        ObjectNode config = JSON.createObjectNode();
        config.put("architecture", hostArchitecture());
        config.put("os", "linux");
        ObjectNode run = config.putObject("config");
        if (!container.entrypoint().isEmpty()) strings(run.putArray("Entrypoint"), container.entrypoint());
        if (!container.cmd().isEmpty()) strings(run.putArray("Cmd"), container.cmd());
        strings(run.putArray("Env"), container.imageEnv());
        if (container.workdir() != null) run.put("WorkingDir", container.workdir());
        ObjectNode rootfs = config.putObject("rootfs");
        rootfs.put("type", "layers");
        rootfs.putArray("diff_ids").add(diffId);
        // No "created" time: it would change the digest of the same directory on every push.
        config.putArray("history").addObject().put("created_by", "baton image push (directory)");
        return config;
    }

    /** The OCI name of the machine's architecture: what the files copied from it were built for. */
    static String hostArchitecture() {
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        return switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            case "ppc64le" -> "ppc64le";
            case "s390x" -> "s390x";
            case "riscv64" -> "riscv64";
            default -> arch;
        };
    }

    private static void strings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }

    private static ObjectNode descriptor(String mediaType, String digest, long size) {
        ObjectNode d = JSON.createObjectNode();
        d.put("mediaType", mediaType);
        d.put("digest", digest);
        d.put("size", size);
        return d;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(MessageDigest hasher) {
        return "sha256:" + HexFormat.of().formatHex(hasher.digest());
    }
}

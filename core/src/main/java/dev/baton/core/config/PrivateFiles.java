package dev.baton.core.config;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data directory holds job environments, outputs, the database and tokens, so it is the
 * server user's alone: directories 0700, files 0600. Java cannot set the process umask, so the
 * server creates what it owns with explicit modes (this class) and, at start, tightens a data
 * directory left open by an older version or by hand, saying so in one log line.
 */
public final class PrivateFiles {
    private static final Logger LOG = LoggerFactory.getLogger(PrivateFiles.class);
    public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {}

    /**
     * Creates {@code dir} and missing parents below an existing ancestor with mode 0700. The
     * directory itself is tried first: on the write path (a project's new output shard directory,
     * made when a write found it missing) its parent usually exists, so that is one {@code mkdir}
     * instead of a {@code stat} per level first.
     */
    public static Path createDirectories(Path dir) throws IOException {
        try {
            createDirectory(dir);
        } catch (NoSuchFileException missingParent) {
            Path parent = dir.toAbsolutePath().getParent();
            if (parent == null) throw missingParent;
            createDirectories(parent);
            createDirectory(dir);
        }
        return dir;
    }

    /** One directory, mode 0700; one that exists already is fine. */
    private static void createDirectory(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, attribute(DIRECTORY));
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir)) throw e;
        } catch (UnsupportedOperationException e) {
            try {
                Files.createDirectory(dir);
            } catch (FileAlreadyExistsException exists) {
                if (!Files.isDirectory(dir)) throw exists;
            }
        }
    }

    /** Creates an empty file with mode 0600. */
    public static Path createFile(Path file) throws IOException {
        try {
            return Files.createFile(file, attribute(FILE));
        } catch (UnsupportedOperationException e) {
            return Files.createFile(file);
        }
    }

    /**
     * Makes the data directory private: created 0700 when missing. When it exists with any group
     * or other access, it and everything under it are tightened (directories 0700, files 0600);
     * otherwise only its direct entries (database, tokens) are checked, so a start does not walk
     * every stored blob. One log line says what changed. Symbolic links are left alone.
     */
    public static void prepareDataDirectory(Path dataDir) throws IOException {
        if (!Files.exists(dataDir, LinkOption.NOFOLLOW_LINKS)) {
            createDirectories(dataDir);
            return;
        }
        if (!posix(dataDir)) return;
        Set<PosixFilePermission> before = Files.getPosixFilePermissions(dataDir);
        boolean open = !before.equals(DIRECTORY);
        int changed = 0;
        try (Stream<Path> all = open ? Files.walk(dataDir) : Files.walk(dataDir, 1)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (Files.isSymbolicLink(p)) continue;
                Set<PosixFilePermission> wanted = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? DIRECTORY : FILE;
                if (!Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS).equals(wanted)) {
                    Files.setPosixFilePermissions(p, wanted);
                    changed++;
                }
            }
        }
        if (changed == 0) return;
        LOG.warn(
                "data directory {} was {}; tightened {} entries to owner-only (directories 0700, files 0600)",
                dataDir,
                PosixFilePermissions.toString(before),
                changed);
    }

    private static boolean posix(Path p) throws IOException {
        return Files.getFileStore(p).supportsFileAttributeView("posix");
    }

    private static FileAttribute<Set<PosixFilePermission>> attribute(Set<PosixFilePermission> perms) {
        return PosixFilePermissions.asFileAttribute(perms);
    }
}

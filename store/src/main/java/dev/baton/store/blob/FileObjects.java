package dev.baton.store.blob;

import dev.baton.core.config.PrivateFiles;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * Named objects as files under a root directory. Every write goes to a uniquely named temporary
 * file moved into place, so a reader (on this node or another on a shared mount) never sees half
 * an object; temporary names start with {@code .} and are never listed.
 */
public final class FileObjects implements NamedObjects {
    private final Path root;

    public FileObjects(Path root) {
        this.root = root;
    }

    @Override
    public Optional<byte[]> read(String key) throws IOException {
        try {
            return Optional.of(Files.readAllBytes(path(key)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * Optimistic about the directory: the temporary file is created straight away, and only when
     * its parent is missing are the directories made (mode 0700) and the creation tried once more.
     * Output keys are laid out so that their directories are nearly always there already
     * (docs/decisions/0032-output-one-file-per-attempt.md); making them first cost every write a
     * {@code mkdir}, which failed with an exception (and a {@code stat}) when the directory was there.
     */
    @Override
    public void write(String key, byte[] content) throws IOException {
        Path file = path(key);
        Path tmp;
        try {
            tmp = temporaryBeside(file);
        } catch (NoSuchFileException missingParent) {
            PrivateFiles.createDirectories(file.getParent());
            tmp = temporaryBeside(file);
        }
        boolean moved = false;
        try {
            Files.write(tmp, content);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            moved = true;
        } finally {
            if (!moved) Files.deleteIfExists(tmp);
        }
    }

    /**
     * A new empty file (mode 0600) beside {@code file} for its content. Named from a random long
     * rather than by {@link Files#createTempFile}, whose {@code SecureRandom} name cost as much as
     * the write on the job's path; it is created exclusively, so a clash (another node on a shared
     * mount) only means another name.
     */
    private static Path temporaryBeside(Path file) throws IOException {
        while (true) {
            Path tmp = file.resolveSibling(
                    ".tmp-" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36));
            try {
                return PrivateFiles.createFile(tmp);
            } catch (FileAlreadyExistsException taken) {
                // another writer's temporary file: draw again
            }
        }
    }

    @Override
    public boolean delete(String key) throws IOException {
        return Files.deleteIfExists(path(key));
    }

    @Override
    public boolean exists(String key) {
        return Files.exists(path(key));
    }

    @Override
    public List<String> list(String prefix) throws IOException {
        Path dir = path(prefix);
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile)
                    .map(p -> p.getFileName().toString())
                    .filter(n -> !n.startsWith("."))
                    .sorted()
                    .toList();
        }
    }

    @Override
    public List<String> listAll(String prefix) throws IOException {
        Path dir = path(prefix);
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().startsWith("."))
                    .map(p -> dir.relativize(p).toString().replace('\\', '/'))
                    .sorted()
                    .toList();
        }
    }

    @Override
    public boolean anyUnder(String prefix) {
        return Files.isDirectory(path(prefix));
    }

    private Path path(String key) {
        return key.isEmpty() ? root : root.resolve(key);
    }
}

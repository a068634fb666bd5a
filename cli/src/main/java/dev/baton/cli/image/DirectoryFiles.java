package dev.baton.cli.image;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Files of an OCI image layout directory; paths that would leave the directory are refused. */
final class DirectoryFiles implements ImageFiles {
    private final Path root;

    DirectoryFiles(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    @Override
    public Optional<Long> size(String path) throws IOException {
        Path file = resolve(path);
        return Files.isRegularFile(file) ? Optional.of(Files.size(file)) : Optional.empty();
    }

    @Override
    public InputStream open(String path) throws IOException {
        return Files.newInputStream(resolve(path));
    }

    private Path resolve(String path) {
        Path file = root.resolve(path).normalize();
        if (!file.startsWith(root)) throw new ImageSourceException("path " + path + " leaves the image directory");
        return file;
    }
}

package dev.baton.server.blob;

import dev.baton.server.config.PrivateFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Blobs as files under a storage root: {@code blobs/<algorithm>/<2 hex>/<hex>}, uploads in
 * progress under {@code _uploads/<uuid>}. A finished upload is moved into place atomically, so a
 * reader sees either no blob or the whole verified blob. The root also holds the job output
 * ({@code <project>/output/...}) and registry metadata ({@code <project>/registry/...}); none of
 * those names can collide with {@code blobs} or {@code _uploads}.
 */
public final class DirectoryBlobStore implements BlobStore {
    private static final int BUFFER = 64 * 1024;

    private final Path blobs;
    private final Path uploads;

    private DirectoryBlobStore(Path root) {
        this.blobs = root.resolve("blobs");
        this.uploads = root.resolve("_uploads");
    }

    /**
     * The store under {@code root} for reading only: no directory is created and no upload is
     * discarded (the registry, which owns uploads, opens the same directory with {@link #open}).
     */
    public static DirectoryBlobStore reader(Path root) {
        return new DirectoryBlobStore(root);
    }

    /** Opens (creating) the store under {@code root} and discards uploads left by a previous run. */
    public static DirectoryBlobStore open(Path root) throws IOException {
        DirectoryBlobStore store = new DirectoryBlobStore(root);
        PrivateFiles.createDirectories(store.blobs);
        PrivateFiles.createDirectories(store.uploads);
        store.discardUploads();
        return store;
    }

    @Override
    public Optional<Long> size(Digest digest) {
        try {
            return Optional.of(Files.size(path(digest)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public InputStream open(Digest digest, long offset) throws IOException {
        FileChannel channel = FileChannel.open(path(digest), StandardOpenOption.READ);
        channel.position(offset);
        return Channels.newInputStream(channel);
    }

    @Override
    public BlobUpload startUpload() throws IOException {
        Path file = uploads.resolve(UUID.randomUUID().toString());
        PrivateFiles.createFile(file);
        return new FileUpload(file);
    }

    @Override
    public void discardUploads() throws IOException {
        try (Stream<Path> files = Files.list(uploads)) {
            for (Path file : (Iterable<Path>) files::iterator) Files.deleteIfExists(file);
        }
    }

    @Override
    public long pendingUploads() throws IOException {
        try (Stream<Path> files = Files.list(uploads)) {
            return files.count();
        }
    }

    private Path path(Digest digest) {
        return blobs.resolve(digest.algorithm()).resolve(digest.hex().substring(0, 2)).resolve(digest.hex());
    }

    /** An upload backed by one temporary file; hashes for both algorithms are kept as data arrives. */
    private final class FileUpload implements BlobUpload {
        private final Path file;
        private final MessageDigest sha256 = Digest.newHasher("sha256");
        private final MessageDigest sha512 = Digest.newHasher("sha512");
        private long size;
        private boolean finished;

        private FileUpload(Path file) {
            this.file = file;
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public long append(InputStream chunk, long maxBytes) throws IOException {
            if (finished) throw new IllegalStateException("upload already finished");
            byte[] buffer = new byte[BUFFER];
            boolean tooLarge = false;
            try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.APPEND)) {
                int n;
                while ((n = chunk.read(buffer)) > 0) {
                    if (size + n > maxBytes) {
                        tooLarge = true;
                        break;
                    }
                    out.write(buffer, 0, n);
                    sha256.update(buffer, 0, n);
                    sha512.update(buffer, 0, n);
                    size += n;
                }
            } catch (IOException | RuntimeException e) {
                // A broken chunk leaves the upload in an unknown state: drop it whole.
                cancel();
                throw e;
            }
            if (tooLarge) {
                cancel();
                throw new BlobTooLargeException(maxBytes);
            }
            return size;
        }

        @Override
        public CommitOutcome commit(Digest expected) throws IOException {
            if (finished) throw new IllegalStateException("upload already finished");
            Digest actual = Digest.of(expected.algorithm(), expected.algorithm().equals("sha256") ? sha256 : sha512);
            if (!actual.equals(expected)) {
                cancel();
                return CommitOutcome.DIGEST_MISMATCH;
            }
            finished = true;
            Path target = path(expected);
            if (Files.exists(target)) {
                Files.deleteIfExists(file); // deduplicated: the same content is already stored
                return CommitOutcome.STORED;
            }
            PrivateFiles.createDirectories(target.getParent());
            try {
                Files.move(file, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
                // Another upload of the same content won the race, or the file system cannot move atomically.
                if (!Files.exists(target)) Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
                Files.deleteIfExists(file);
            }
            return CommitOutcome.STORED;
        }

        @Override
        public void cancel() throws IOException {
            finished = true;
            Files.deleteIfExists(file);
        }
    }
}

package dev.baton.store.blob;

import dev.baton.core.config.PrivateFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Blobs as files under a storage root: {@code blobs/<algorithm>/<2 hex>/<hex>}, uploads in
 * progress under {@code _uploads/<upload id>/<chunk>}. A verified upload is moved into place
 * atomically (one chunk is renamed, several are first joined into one file in the staging area),
 * so a reader sees either no blob or the whole verified blob. The root also holds the job output
 * ({@code <project>/output/...}) and registry metadata ({@code <project>/registry/...}); none of
 * those names can collide with {@code blobs} or {@code _uploads}.
 *
 * <p>Safe for several server nodes on one shared mount (NFS and the like): every file is written
 * under a unique name and published by rename within one file system; two nodes committing the
 * same digest rename the same verified content onto one name; nothing lives only in memory.
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
     * Opens (creating) the store under {@code root}, keeping uploads in progress: their sessions
     * are in the database and any node may continue them. What the server uses.
     */
    public static DirectoryBlobStore create(Path root) throws IOException {
        DirectoryBlobStore store = new DirectoryBlobStore(root);
        PrivateFiles.createDirectories(store.blobs);
        PrivateFiles.createDirectories(store.uploads);
        return store;
    }

    /**
     * Opens (creating) the store for a process that is its only user (tools, tests) and discards
     * every upload left by a previous run. Not for a server: other nodes' uploads would be lost.
     */
    public static DirectoryBlobStore open(Path root) throws IOException {
        DirectoryBlobStore store = create(root);
        for (StagedUpload upload : store.stagedUploads()) store.discard(upload.id());
        return store;
    }

    @Override
    public Optional<Long> size(Digest digest) {
        try {
            return Optional.of(Files.size(path(digest)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public InputStream open(Digest digest, long offset) throws IOException {
        FileChannel channel = FileChannel.open(path(digest), StandardOpenOption.READ);
        channel.position(offset);
        return Channels.newInputStream(channel);
    }

    @Override
    public void createStaging(String uploadId) throws IOException {
        PrivateFiles.createDirectories(staging(uploadId));
    }

    @Override
    public StagedChunk writeChunk(String uploadId, InputStream content, long maxBytes, RunningHash hash)
            throws IOException {
        Path dir = staging(uploadId);
        PrivateFiles.createDirectories(dir);
        StagedChunk named = new StagedChunk(UUID.randomUUID().toString(), 0);
        Path file = dir.resolve(named.name());
        PrivateFiles.createFile(file);
        byte[] buffer = new byte[BUFFER];
        long size = 0;
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.APPEND)) {
            int n;
            while ((n = content.read(buffer)) > 0) {
                if (size + n > maxBytes) throw new BlobTooLargeException(maxBytes);
                out.write(buffer, 0, n);
                hash.update(buffer, 0, n);
                size += n;
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        return new StagedChunk(named.name(), size);
    }

    @Override
    public InputStream openChunks(String uploadId, List<StagedChunk> chunks) throws IOException {
        List<InputStream> streams = new ArrayList<>();
        try {
            for (StagedChunk chunk : chunks)
                streams.add(Files.newInputStream(staging(uploadId).resolve(chunk.name())));
        } catch (IOException e) {
            for (InputStream s : streams) s.close();
            throw e;
        }
        Enumeration<InputStream> all = Collections.enumeration(streams);
        return new SequenceInputStream(all);
    }

    @Override
    public void commit(String uploadId, List<StagedChunk> chunks, Digest digest) throws IOException {
        Path target = path(digest);
        if (Files.exists(target)) {
            discard(uploadId); // deduplicated: the same content is already stored
            return;
        }
        Path joined;
        if (chunks.size() == 1) {
            joined = staging(uploadId).resolve(chunks.getFirst().name());
        } else {
            joined = staging(uploadId).resolve(UUID.randomUUID().toString());
            PrivateFiles.createFile(joined);
            try (InputStream in = openChunks(uploadId, chunks);
                    OutputStream out = Files.newOutputStream(joined, StandardOpenOption.APPEND)) {
                in.transferTo(out);
            }
        }
        PrivateFiles.createDirectories(target.getParent());
        try {
            Files.move(joined, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
            // Another upload of the same content won the race, or the file system cannot move atomically.
            if (!Files.exists(target)) Files.move(joined, target, StandardCopyOption.REPLACE_EXISTING);
        }
        discard(uploadId);
    }

    @Override
    public void deleteChunk(String uploadId, StagedChunk chunk) throws IOException {
        Files.deleteIfExists(staging(uploadId).resolve(chunk.name()));
    }

    @Override
    public void discard(String uploadId) throws IOException {
        Path dir = staging(uploadId);
        if (Files.isRegularFile(dir)) { // an upload file of a version before chunked staging
            Files.deleteIfExists(dir);
            return;
        }
        // A node may still be writing a chunk here (its write then fails, and the registry answers
        // that the upload is gone): retry until the directory is empty and removed.
        for (int attempt = 0; attempt < 5; attempt++) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Iterator<Path> it = files.iterator(); it.hasNext(); ) Files.deleteIfExists(it.next());
            } catch (NoSuchFileException e) {
                return;
            }
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (DirectoryNotEmptyException e) {
                // a chunk appeared meanwhile; list again
            }
        }
    }

    @Override
    public List<StagedUpload> stagedUploads() throws IOException {
        List<StagedUpload> result = new ArrayList<>();
        try (Stream<Path> entries = Files.list(uploads)) {
            for (Iterator<Path> it = entries.iterator(); it.hasNext(); ) {
                Path entry = it.next();
                String id = entry.getFileName().toString();
                if (!UPLOAD_ID.matcher(id).matches()) continue;
                try {
                    result.add(new StagedUpload(id, lastWrite(entry)));
                } catch (NoSuchFileException e) {
                    // discarded while listing
                }
            }
        }
        return result;
    }

    /** The newest modification in an upload's staging area: a chunk still being written counts. */
    private static Instant lastWrite(Path staging) throws IOException {
        Instant newest = Files.getLastModifiedTime(staging).toInstant();
        if (!Files.isDirectory(staging)) return newest;
        try (Stream<Path> chunks = Files.list(staging)) {
            for (Iterator<Path> it = chunks.iterator(); it.hasNext(); ) {
                try {
                    Instant t = Files.getLastModifiedTime(it.next()).toInstant();
                    if (t.isAfter(newest)) newest = t;
                } catch (NoSuchFileException e) {
                    // joined or discarded meanwhile
                }
            }
        }
        return newest;
    }

    private Path staging(String uploadId) {
        return uploads.resolve(BlobStore.checkUploadId(uploadId));
    }

    private Path path(Digest digest) {
        return blobs.resolve(digest.algorithm())
                .resolve(digest.hex().substring(0, 2))
                .resolve(digest.hex());
    }
}

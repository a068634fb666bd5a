package dev.baton.store.blob;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * An upload as an ordered list of immutable chunks in a {@link BlobStore}, with the running hash
 * of its content when this node has seen all of it. The list is what the registry records in
 * the database after each chunk, so the upload can be rebuilt on any node ({@link #resume}); a
 * resumed upload without a running hash reads its chunks once more to verify the digest.
 */
public final class ChunkedUpload implements BlobUpload {
    private static final int BUFFER = 64 * 1024;

    private final BlobStore store;
    private final String id;
    private final List<StagedChunk> chunks;
    private RunningHash hash; // null: not every byte passed through this node
    private long size;
    private boolean finished;

    private ChunkedUpload(BlobStore store, String id, List<StagedChunk> chunks, RunningHash hash) {
        this.store = store;
        this.id = BlobStore.checkUploadId(id);
        this.chunks = new ArrayList<>(chunks);
        this.size = chunks.stream().mapToLong(StagedChunk::size).sum();
        this.hash = hash != null && hash.size() == size ? hash : null;
    }

    /** A new, empty upload whose staging area exists. */
    public static ChunkedUpload fresh(BlobStore store, String id) {
        return new ChunkedUpload(store, id, List.of(), new RunningHash());
    }

    /**
     * An upload rebuilt from its recorded chunks. {@code hash} is this node's running hash of it,
     * if any; it is used only when it covers exactly the recorded content.
     */
    public static ChunkedUpload resume(BlobStore store, String id, List<StagedChunk> chunks, RunningHash hash) {
        return new ChunkedUpload(store, id, chunks, hash);
    }

    public String id() {
        return id;
    }

    public List<StagedChunk> chunks() {
        return List.copyOf(chunks);
    }

    /** The running hash when it covers all content, else null. */
    public RunningHash hash() {
        return hash;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public long append(InputStream chunk, long maxBytes) throws IOException {
        record(writeChunk(chunk, maxBytes));
        return size;
    }

    /**
     * A chunk written but not yet part of the upload, with the running hash after it (null if
     * unknown). An empty chunk is not kept: {@code chunk} is then null.
     */
    public record Written(StagedChunk chunk, RunningHash hashAfter) {}

    /**
     * Writes a chunk without adding it, for a caller that records it elsewhere first (the
     * registry's compare-and-set in the database) and then calls {@link #record}. More than
     * {@code maxBytes} in the whole upload, or a broken stream, discards the upload whole.
     */
    public Written writeChunk(InputStream chunk, long maxBytes) throws IOException {
        if (finished) throw new IllegalStateException("upload already finished");
        // Without a hash of what came before, this chunk's bytes are hashed for nothing; on commit
        // the whole content is read again anyway.
        RunningHash next = hash != null ? hash.copy() : new RunningHash();
        try {
            StagedChunk written = store.writeChunk(id, chunk, Math.max(0, maxBytes - size), next);
            if (written.size() == 0) {
                store.deleteChunk(id, written);
                return new Written(null, hash);
            }
            return new Written(written, hash != null ? next : null);
        } catch (BlobTooLargeException e) {
            cancel();
            throw new BlobTooLargeException(maxBytes);
        } catch (IOException | RuntimeException e) {
            // A broken chunk leaves the upload in an unknown state: drop it whole.
            cancel();
            throw e;
        }
    }

    /** Adds a chunk written by {@link #writeChunk} to this upload. */
    public void record(Written written) {
        if (written.chunk() == null) return;
        chunks.add(written.chunk());
        size += written.chunk().size();
        hash = written.hashAfter() != null && written.hashAfter().size() == size ? written.hashAfter() : null;
    }

    @Override
    public CommitOutcome commit(Digest expected) throws IOException {
        if (finished) throw new IllegalStateException("upload already finished");
        Digest actual = hash != null ? hash.digest(expected.algorithm()) : rehash(expected.algorithm());
        if (!actual.equals(expected)) {
            cancel();
            return CommitOutcome.DIGEST_MISMATCH;
        }
        finished = true;
        store.commit(id, chunks, expected);
        return CommitOutcome.STORED;
    }

    @Override
    public void cancel() throws IOException {
        finished = true;
        store.discard(id);
    }

    private Digest rehash(String algorithm) throws IOException {
        RunningHash again = new RunningHash();
        byte[] buffer = new byte[BUFFER];
        try (InputStream in = store.openChunks(id, chunks)) {
            int n;
            while ((n = in.read(buffer)) > 0) again.update(buffer, 0, n);
        }
        if (again.size() != size)
            throw new IOException("upload " + id + " holds " + again.size() + " bytes, " + size + " recorded");
        return again.digest(algorithm);
    }
}

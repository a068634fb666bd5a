package dev.baton.store.blob;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Content-addressed, deduplicated blob storage (image layers, configs, manifests). A blob is
 * written as chunks into the staging area of an upload and becomes visible only once its content
 * has been verified against the digest the writer claims ({@link ChunkedUpload} does the
 * verifying, the same way for every backend). Blobs carry no ownership: who may read which blob
 * is the registry's business (per-repository links).
 *
 * <p>Everything a store keeps is in the directory or bucket itself, never only in one process's
 * memory: chunks are immutable and uniquely named, a blob appears in one atomic step, and the
 * same content committed twice (by two nodes at once) is the same blob. So several server nodes
 * may share one store, and an upload started on one node may be continued on another. A
 * directory is the default backend ({@link DirectoryBlobStore}); an S3-compatible bucket the
 * other ({@link S3BlobStore}).
 */
public interface BlobStore {
    /** What an upload id may look like: it names a directory or key prefix, so nothing else. */
    Pattern UPLOAD_ID = Pattern.compile("[A-Za-z0-9-]{1,64}");

    /** Size in bytes of a stored blob, empty when absent. */
    Optional<Long> size(Digest digest) throws IOException;

    /** Reads a stored blob from {@code offset}; the caller bounds how much it reads. */
    InputStream open(Digest digest, long offset) throws IOException;

    /** Makes the staging area of a new upload (where the backend has such a thing). */
    void createStaging(String uploadId) throws IOException;

    /**
     * Writes {@code content} as a new chunk of the upload, passing every byte through
     * {@code hash}. More than {@code maxBytes} bytes: the partial chunk is removed and
     * {@link BlobTooLargeException} thrown. Any other failure also leaves no chunk behind.
     */
    StagedChunk writeChunk(String uploadId, InputStream content, long maxBytes, RunningHash hash) throws IOException;

    /** Reads the chunks in order, as one stream (to hash an upload continued from another node). */
    InputStream openChunks(String uploadId, List<StagedChunk> chunks) throws IOException;

    /**
     * Makes the chunks, joined in order, the blob {@code digest} (the caller has verified the
     * content), then discards the upload's staging area. A blob already stored is kept as it is.
     */
    void commit(String uploadId, List<StagedChunk> chunks, Digest digest) throws IOException;

    /** Removes one chunk that was written but never recorded. */
    void deleteChunk(String uploadId, StagedChunk chunk) throws IOException;

    /** Removes the upload's staging area and everything in it. Idempotent. */
    void discard(String uploadId) throws IOException;

    /** Every upload that has a staging area (to find what crashed writers left behind). */
    List<StagedUpload> stagedUploads() throws IOException;

    /** Number of unfinished uploads in the staging area (observability and tests). */
    default long pendingUploads() throws IOException {
        return stagedUploads().size();
    }

    /** Starts a new upload held by the caller (its chunks and running hash in memory). */
    default BlobUpload startUpload() throws IOException {
        String id = UUID.randomUUID().toString();
        createStaging(id);
        return ChunkedUpload.fresh(this, id);
    }

    /** Stores a blob from a stream in one go (verified like any upload). */
    default CommitOutcome put(InputStream content, Digest expected, long maxBytes) throws IOException {
        BlobUpload upload = startUpload();
        try {
            upload.append(content, maxBytes);
        } catch (IOException | RuntimeException e) {
            upload.cancel();
            throw e;
        }
        return upload.commit(expected);
    }

    static String checkUploadId(String uploadId) {
        if (uploadId == null || !UPLOAD_ID.matcher(uploadId).matches())
            throw new IllegalArgumentException("bad upload id");
        return uploadId;
    }
}

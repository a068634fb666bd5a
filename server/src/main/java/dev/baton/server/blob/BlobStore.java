package dev.baton.server.blob;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * Content-addressed, deduplicated blob storage (image layers, configs, manifests). A blob is
 * written through an {@link BlobUpload} in a temporary area and becomes visible only once its
 * content has been verified against the digest the writer claims. Blobs carry no ownership: who
 * may read which blob is the registry's business (per-repository links). A directory is the
 * default backend; the interface is what an S3-compatible backend would implement.
 */
public interface BlobStore {

    /** Size in bytes of a stored blob, empty when absent. */
    Optional<Long> size(Digest digest);

    /** Reads a stored blob from {@code offset}; the caller bounds how much it reads. */
    InputStream open(Digest digest, long offset) throws IOException;

    /** Starts a new upload in the temporary area. */
    BlobUpload startUpload() throws IOException;

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

    /** Removes every unfinished upload; called on start, because uploads survive no restart. */
    void discardUploads() throws IOException;

    /** Number of unfinished uploads in the temporary area (observability and tests). */
    long pendingUploads() throws IOException;
}

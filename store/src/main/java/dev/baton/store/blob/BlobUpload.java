package dev.baton.store.blob;

import java.io.IOException;
import java.io.InputStream;

/**
 * One blob being written. Chunks are appended in order; the running hash is kept so that the
 * final verification does not read the content again. Not thread-safe: one object serves one
 * request; the registry settles requests racing on one upload session in the store.
 */
public interface BlobUpload {

    /** Bytes received so far. */
    long size();

    /**
     * Appends the stream to the upload. When the total would exceed {@code maxBytes} the upload
     * is discarded and {@link BlobTooLargeException} thrown, so nothing of it remains.
     */
    long append(InputStream chunk, long maxBytes) throws IOException;

    /**
     * Verifies the content against {@code expected} and moves it into the store (or drops it when
     * the store already holds that content). On a mismatch the upload is discarded. Either way the
     * upload is finished afterwards.
     */
    CommitOutcome commit(Digest expected) throws IOException;

    /** Discards the upload and its temporary data. Idempotent. */
    void cancel() throws IOException;
}

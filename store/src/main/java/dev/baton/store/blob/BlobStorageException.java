package dev.baton.store.blob;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The blob storage backend (an S3-compatible service) failed or could not be reached. Answered
 * 503 with a stable code, by the REST API ({@code blob_storage_unavailable}) and the registry
 * ({@code UNAVAILABLE}); the details go to the server log only.
 */
public final class BlobStorageException extends UncheckedIOException {
    public BlobStorageException(String operation, Exception cause) {
        super(operation + ": " + cause.getMessage(), cause instanceof IOException io ? io : new IOException(cause));
    }
}

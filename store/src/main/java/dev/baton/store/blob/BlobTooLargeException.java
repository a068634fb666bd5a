package dev.baton.store.blob;

import java.io.IOException;

/** An upload grew past the configured bound; it has been discarded. */
public final class BlobTooLargeException extends IOException {
    private final long limit;

    public BlobTooLargeException(long limit) {
        super("blob exceeds the limit of " + limit + " bytes");
        this.limit = limit;
    }

    public long limit() {
        return limit;
    }
}

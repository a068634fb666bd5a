package dev.baton.registry;

/** The error codes of the OCI distribution specification, with the HTTP status each usually goes with. */
public enum ErrorCode {
    BLOB_UNKNOWN(404),
    BLOB_UPLOAD_INVALID(400),
    BLOB_UPLOAD_UNKNOWN(404),
    DIGEST_INVALID(400),
    MANIFEST_BLOB_UNKNOWN(400),
    MANIFEST_INVALID(400),
    MANIFEST_UNKNOWN(404),
    NAME_INVALID(400),
    NAME_UNKNOWN(404),
    /** Not in the OCI list; distribution's code for a bad {@code n} on the tags list. */
    PAGINATION_NUMBER_INVALID(400),
    SIZE_INVALID(400),
    UNAUTHORIZED(401),
    DENIED(403),
    UNSUPPORTED(405),
    /** Not in the OCI list; distribution's code when a backend (here the blob storage) cannot be reached. */
    UNAVAILABLE(503),
    /** Not in the OCI list; distribution's code for an unexpected failure on the server's side. */
    UNKNOWN(500);

    private final int status;

    ErrorCode(int status) {
        this.status = status;
    }

    public int status() {
        return status;
    }
}

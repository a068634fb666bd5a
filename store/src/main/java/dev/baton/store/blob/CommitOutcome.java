package dev.baton.store.blob;

/** How a finished upload went. */
public enum CommitOutcome {
    /** The content matched its digest and is in the store (newly written or already there). */
    STORED,
    /** The content did not match the claimed digest; it was discarded. */
    DIGEST_MISMATCH
}

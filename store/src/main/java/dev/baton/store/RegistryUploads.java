package dev.baton.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The store's part for the OCI registry's upload sessions (docs/registry.md), each advance a
 * compare-and-set on the session's size.
 */
public interface RegistryUploads {
    /** Records a new upload session (its id is fresh: a UUID the registry chose). */
    void createRegistryUpload(RegistryUpload upload);

    Optional<RegistryUpload> findRegistryUpload(String id);

    /**
     * Compare-and-set: records the upload's new chunks and size if it still holds
     * {@code expectedSize} bytes. False, nothing written, when another request changed or ended it.
     */
    boolean advanceRegistryUpload(String id, long expectedSize, long size, String chunks, Instant now);

    /**
     * Ends the session if it still holds {@code expectedSize} bytes (negative: whatever it holds);
     * true for the one caller that removed it, who then owns its data.
     */
    boolean deleteRegistryUpload(String id, long expectedSize);

    /** Sessions not changed since {@code cutoff}, oldest first. */
    List<RegistryUpload> idleRegistryUploads(Instant cutoff, int limit);

    /** Open upload sessions, all nodes together. */
    long countRegistryUploads();
}

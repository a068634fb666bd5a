package dev.baton.store;

import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The store's part for specs, the machines jobs ask for, and the specs each runner serves.
 */
public interface Specs {
    Spec createSpec(
            String name,
            Slug slug,
            Architecture architecture,
            int cpu,
            long memory,
            long disk,
            boolean network,
            Instant now);

    Optional<Spec> findSpec(ResourceId id);

    Optional<Spec> findSpec(long id);

    List<Spec> listSpecs(boolean archived);

    Spec updateSpec(long specId, String name, Slug slug, Boolean archived, Instant now);

    /** Sets (or with null clears) the spec's default queue timeout in seconds for jobs submitted from now on. */
    Spec setSpecQueueTimeout(long specId, Integer queueTimeoutSeconds, Instant now);

    /** Whether the spec's jobs require a clean machine fingerprint (runners decline them on a noisy machine). */
    Spec setSpecRequireCleanFingerprint(long specId, boolean required, Instant now);

    /** Deletes a spec; IN_USE while any job references it. Runner associations go with it. */
    void deleteSpec(long specId);

    List<Spec> runnerSpecs(long runnerId);

    /** Idempotent: adding an existing association changes nothing. */
    void addRunnerSpec(long runnerId, long specId);

    /** Returns false when there was no such association. */
    boolean removeRunnerSpec(long runnerId, long specId);

    /**
     * Runs {@code listener} after every change through this store to which specs a runner serves
     * or to a spec (archived, renamed, deleted, settings), committed or not (issue 13: nodes cache
     * runner spec sets; docs/decisions/0018). Returns what stops it. Other processes' changes are
     * not seen here: nodes tell each other over the cluster bus.
     */
    default Runnable onSpecsChange(Runnable listener) {
        return () -> {};
    }

    /** Another node changed specs or runner specs: forget what this store remembers of specs. */
    default void specsChangedElsewhere() {}
}

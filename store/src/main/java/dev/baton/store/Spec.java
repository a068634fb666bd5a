package dev.baton.store;

import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.model.SpecView;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import java.time.Instant;

/**
 * A hardware class that runners serve and jobs target (seed 001). {@code requireCleanFingerprint}:
 * its jobs run only on a machine whose fingerprint has no noise warning (docs/scheduling.md).
 */
public record Spec(
        long id,
        SpecUuid uuid,
        String name,
        Slug slug,
        Architecture architecture,
        int cpu,
        long memory,
        long disk,
        boolean network,
        Instant created,
        Instant modified,
        Instant archived,
        Integer queueTimeout,
        boolean requireCleanFingerprint) {

    public Spec(
            long id,
            SpecUuid uuid,
            String name,
            Slug slug,
            Architecture architecture,
            int cpu,
            long memory,
            long disk,
            boolean network,
            Instant created,
            Instant modified,
            Instant archived,
            Integer queueTimeout) {
        this(
                id,
                uuid,
                name,
                slug,
                architecture,
                cpu,
                memory,
                disk,
                network,
                created,
                modified,
                archived,
                queueTimeout,
                false);
    }

    public SpecView view() {
        return new SpecView(
                uuid,
                name,
                slug.value(),
                architecture,
                cpu,
                memory,
                disk,
                network,
                created,
                modified,
                archived,
                queueTimeout,
                requireCleanFingerprint);
    }
}

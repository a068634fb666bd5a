package dev.baton.protocol.model;

import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.value.Architecture;
import java.time.Instant;

/**
 * A spec as the API and the runner see it (seed 001's JsonSpec). {@code queueTimeout} is
 * Baton's: the default queue timeout in seconds of jobs submitted to it, or null for none.
 * {@code requireCleanFingerprint} (Baton's) asks runners to decline its jobs ({@code noisy_machine})
 * when their machine fingerprint has a noise warning; absent from older servers: false.
 * {@code maxNoiseCv} (Baton's, decision 0052): only runners whose latest noise calibration's
 * largest coefficient of variation is at most this claim its jobs; null for no limit.
 */
public record SpecView(
        SpecUuid uuid,
        String name,
        String slug,
        Architecture architecture,
        int cpu,
        long memory,
        long disk,
        boolean network,
        Instant created,
        Instant modified,
        Instant archived,
        Integer queueTimeout,
        boolean requireCleanFingerprint,
        Double maxNoiseCv) {

    /** A spec without a noise limit (as servers before decision 0052 sent it). */
    public SpecView(
            SpecUuid uuid,
            String name,
            String slug,
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
        this(
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
                requireCleanFingerprint,
                null);
    }

    public SpecView(
            SpecUuid uuid,
            String name,
            String slug,
            Architecture architecture,
            int cpu,
            long memory,
            long disk,
            boolean network,
            Instant created,
            Instant modified,
            Instant archived) {
        this(uuid, name, slug, architecture, cpu, memory, disk, network, created, modified, archived, null, false);
    }

    public SpecView(
            SpecUuid uuid,
            String name,
            String slug,
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
}

package dev.baton.store;

import dev.baton.protocol.id.RunnerUuid;
import dev.baton.protocol.value.Slug;
import java.time.Instant;

/**
 * A registered runner machine. Its key hash never leaves the store. {@code quarantined} is when it
 * was quarantined for flaky infrastructure (null: it is not) and {@code quarantineReason} says why
 * (docs/scheduling.md, "Quarantine of flaky runners"). An {@code ephemeral} runner takes one
 * attempt and is spent once it ended; {@code boundJob} (the job's row id, null: none) is the job
 * it was started for, the only one it takes (issue 43, docs/runner.md "Single-job runners").
 */
public record Runner(
        long id,
        RunnerUuid uuid,
        String name,
        Slug slug,
        Instant lastHeartbeat,
        Instant created,
        Instant modified,
        Instant archived,
        Instant quarantined,
        String quarantineReason,
        boolean ephemeral,
        Long boundJob) {

    public boolean isArchived() {
        return archived != null;
    }

    public boolean isQuarantined() {
        return quarantined != null;
    }
}

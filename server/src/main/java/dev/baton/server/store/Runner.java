package dev.baton.server.store;

import dev.baton.protocol.id.RunnerUuid;
import dev.baton.protocol.value.Slug;
import java.time.Instant;

/** A registered runner machine. Its key hash never leaves the store. */
public record Runner(
        long id, RunnerUuid uuid, String name, Slug slug, Instant lastHeartbeat, Instant created, Instant modified, Instant archived) {

    public boolean isArchived() {
        return archived != null;
    }
}

package dev.baton.server.api;

import dev.baton.protocol.id.RunnerUuid;
import dev.baton.server.store.Runner;
import java.time.Instant;

/**
 * A runner as the API shows it; its key hash never leaves the store. {@code quarantined} and
 * {@code quarantineReason} are present while it is quarantined (docs/scheduling.md).
 */
public record RunnerView(RunnerUuid uuid, String name, String slug, Instant lastHeartbeat, Instant created, Instant modified, Instant archived,
        Instant quarantined, String quarantineReason) {
    static RunnerView of(Runner r) {
        return new RunnerView(r.uuid(), r.name(), r.slug().value(), r.lastHeartbeat(), r.created(), r.modified(), r.archived(),
                r.quarantined(), r.quarantineReason());
    }
}

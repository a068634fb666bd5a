package dev.baton.server.api;

import dev.baton.protocol.id.RunnerUuid;
import dev.baton.server.store.Runner;
import dev.baton.server.store.RunnerLabels;
import java.time.Instant;
import java.util.Map;

/**
 * A runner as the API shows it; its key hash never leaves the store. {@code quarantined} and
 * {@code quarantineReason} are present while it is quarantined (docs/scheduling.md).
 */
public record RunnerView(RunnerUuid uuid, String name, String slug, Instant lastHeartbeat, Instant created, Instant modified, Instant archived,
        Instant quarantined, String quarantineReason, Map<String, String> labels, Map<String, String> labelsSet,
        Map<String, String> labelsReported) {
    /** {@code labels} is the effective set the claim matches; the other two say where each came from. */
    static RunnerView of(Runner r, RunnerLabels l) {
        return new RunnerView(r.uuid(), r.name(), r.slug().value(), r.lastHeartbeat(), r.created(), r.modified(), r.archived(),
                r.quarantined(), r.quarantineReason(), l.effective(), l.admin(), l.reported());
    }
}

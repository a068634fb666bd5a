package dev.baton.api;

import dev.baton.core.config.ShippedVersion;
import dev.baton.protocol.id.RunnerUuid;
import dev.baton.store.KnownMachine;
import dev.baton.store.Runner;
import dev.baton.store.RunnerLabels;
import java.time.Instant;
import java.util.Map;

/**
 * A runner as the API shows it; its key hash never leaves the store. {@code quarantined} and
 * {@code quarantineReason} are present while it is quarantined (docs/scheduling.md).
 * {@code machine} is the machine it last connected as (issue 41), {@code version} the agent version
 * that machine reported and {@code behind} whether that is not the version this server ships
 * ({@code shippedVersion}); all three are null for a runner that never said {@code ready} since
 * machines are recorded.
 */
public record RunnerView(
        RunnerUuid uuid,
        String name,
        String slug,
        Instant lastHeartbeat,
        Instant created,
        Instant modified,
        Instant archived,
        Instant quarantined,
        String quarantineReason,
        Map<String, String> labels,
        Map<String, String> labelsSet,
        Map<String, String> labelsReported,
        MachineView machine,
        String version,
        Boolean behind,
        String shippedVersion,
        Boolean ephemeral) {
    /** {@code labels} is the effective set the claim matches; the other two say where each came from. */
    static RunnerView of(Runner r, RunnerLabels l, KnownMachine m, String shipped) {
        String version = m == null ? null : m.host().version();
        return new RunnerView(
                r.uuid(),
                r.name(),
                r.slug().value(),
                r.lastHeartbeat(),
                r.created(),
                r.modified(),
                r.archived(),
                r.quarantined(),
                r.quarantineReason(),
                l.effective(),
                l.admin(),
                l.reported(),
                MachineView.of(m),
                version,
                ShippedVersion.behind(version, shipped),
                shipped,
                r.ephemeral() ? Boolean.TRUE : null);
    }
}

package dev.baton.channelclient.machine;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import java.time.Instant;

/**
 * An attempt this runner holds, written to disk when claimed and again when it starts. After a
 * crash it tells the restarted agent whether to decline (never started) or fail (started) it.
 */
public record InflightRecord(JobUuid job, LeaseId lease, Instant started) {
    public boolean hasStarted() {
        return started != null;
    }
}

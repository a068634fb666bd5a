package dev.baton.router;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.MachineFingerprint;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/** One upstream attempt the router holds, under the server's lease. Touched only by the event loop. */
final class HeldJob {
    enum State {
        QUEUED,
        OFFERED,
        RUNNING,
        FINISHING
    }

    final JobUuid id;
    final LeaseId lease;
    /** Null for an attempt the router adopted after its own restart (a runner came back with it). */
    final ClaimedJob claimed;

    State state;
    String owner;
    final Set<String> declinedBy = new HashSet<>();
    /** Start of the acceptance window (restarted by the owner's {@code preparing}). */
    Instant windowStart;

    final Instant received;
    Instant lastKeepAlive;
    DeclineCode lastDeclineCode = DeclineCode.OTHER;
    String lastDeclineReason;
    /** The machine fingerprint of the last runner's decline, passed upstream with the router's own decline. */
    MachineFingerprint lastDeclineFingerprint;
    /** A cancel for a runner that is disconnected now: relayed when it comes back. */
    ServerMessage.Cancel pendingCancel;
    /** When the owner's connection dropped (null while connected). */
    Instant ownerGoneSince;
    /**
     * The labels the router advertised upstream when the job came (every waiting runner had
     * them): the job's required labels are among them, so only a runner with all of them may
     * take it (the claimed job does not name its required labels).
     */
    java.util.Map<String, String> labels = java.util.Map.of();

    HeldJob(JobUuid id, LeaseId lease, ClaimedJob claimed, State state, Instant now) {
        this.id = id;
        this.lease = lease;
        this.claimed = claimed;
        this.state = state;
        this.windowStart = now;
        this.received = now;
        this.lastKeepAlive = now;
    }

    ProjectUuid project() {
        return claimed == null || claimed.config() == null
                ? null
                : claimed.config().project();
    }

    String spec() {
        return claimed == null ? null : claimed.spec().slug();
    }
}

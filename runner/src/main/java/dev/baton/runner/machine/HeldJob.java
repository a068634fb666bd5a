package dev.baton.runner.machine;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.MachineFingerprint;
import java.time.Instant;

/** One job this runner holds, from the claim until the executor says it finished. */
final class HeldJob {
    /** Where the attempt is: preparing (pull, unpack), prepared (may start), running (the clock runs). */
    enum Phase {
        PREPARING,
        PREPARED,
        RUNNING
    }

    /** Why the runner asked the executor to stop the job; decides what is reported when it finishes. */
    enum StopReason {
        CANCEL,
        STALE,
        TIMEOUT,
        SHUTDOWN
    }

    final ClaimedJob job;
    Phase phase = Phase.PREPARING;
    /** Null while nobody asked the job to stop. */
    StopReason stop;
    /** The job's local timeout, from the moment the workload started. */
    Instant deadline;

    String progress = "claimed";
    /** The machine's state read before the workload started; sent with every {@code running}. */
    MachineFingerprint fingerprint;

    final LiveLog live = new LiveLog();

    HeldJob(ClaimedJob job) {
        this.job = job;
    }

    JobUuid id() {
        return job.uuid();
    }

    LeaseId lease() {
        return job.lease();
    }
}

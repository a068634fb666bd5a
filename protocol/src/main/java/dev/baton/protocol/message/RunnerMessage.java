package dev.baton.protocol.message;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.model.IterationResult;
import java.util.List;

/** Messages a runner sends on its channel; {@code event} names the type. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "event")
@JsonSubTypes({
    @JsonSubTypes.Type(value = RunnerMessage.Ready.class, name = "ready"),
    @JsonSubTypes.Type(value = RunnerMessage.Preparing.class, name = "preparing"),
    @JsonSubTypes.Type(value = RunnerMessage.Declined.class, name = "declined"),
    @JsonSubTypes.Type(value = RunnerMessage.Running.class, name = "running"),
    @JsonSubTypes.Type(value = RunnerMessage.Heartbeat.class, name = "heartbeat"),
    @JsonSubTypes.Type(value = RunnerMessage.Completed.class, name = "completed"),
    @JsonSubTypes.Type(value = RunnerMessage.Failed.class, name = "failed"),
    @JsonSubTypes.Type(value = RunnerMessage.Canceled.class, name = "canceled"),
})
public sealed interface RunnerMessage {

    /** A message about one attempt of one job; it is applied only while its lease is current. */
    sealed interface JobScoped extends RunnerMessage {
        JobUuid job();

        LeaseId lease();
    }

    /** A final word about an attempt; resent after a reconnect until acknowledged. */
    sealed interface Terminal extends JobScoped {}

    /**
     * The runner is idle (or has free slots) and asks for work. {@code pollTimeout} is seconds
     * (1–900, default 30); {@code slots} is how many more jobs it can take now (default 1).
     */
    record Ready(Integer pollTimeout, String os, String arch, String version, Integer slots) implements RunnerMessage {}

    /** Keep-alive while a claimed job is being provisioned (pull, unpack, boot). */
    record Preparing(JobUuid job, LeaseId lease, String message) implements JobScoped {}

    /**
     * The runner cannot run this job; it goes back to the queue for another runner. {@code code}
     * is one of {@link DeclineCode}'s wire names (absent from older runners: read as
     * {@code other}); {@code reason} is one human sentence.
     */
    record Declined(JobUuid job, LeaseId lease, String code, String reason) implements JobScoped {
        /** A decline without a code (as runners before decline codes sent it). */
        public Declined(JobUuid job, LeaseId lease, String reason) {
            this(job, lease, (String) null, reason);
        }

        public Declined(JobUuid job, LeaseId lease, DeclineCode code, String reason) {
            this(job, lease, code.wireName(), reason);
        }

        /** The code as sent, or {@code other} when absent or unknown to this version. */
        public DeclineCode declineCode() {
            return DeclineCode.parse(code);
        }
    }

    /** Execution really started: starts the clock. */
    record Running(JobUuid job, LeaseId lease) implements JobScoped {}

    /**
     * Liveness. With {@code job} and {@code lease} it keeps that attempt alive; without, it only
     * says the connection is alive (an idle runner).
     */
    record Heartbeat(JobUuid job, LeaseId lease) implements RunnerMessage {}

    record Completed(JobUuid job, LeaseId lease, List<IterationResult> results) implements Terminal {}

    record Failed(JobUuid job, LeaseId lease, List<IterationResult> results, String error) implements Terminal {}

    /** Acknowledges a {@code cancel}: the workload is stopped; partial results may be attached. */
    record Canceled(JobUuid job, LeaseId lease, List<IterationResult> results) implements Terminal {}
}

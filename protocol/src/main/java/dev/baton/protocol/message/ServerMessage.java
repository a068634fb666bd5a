package dev.baton.protocol.message;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.model.ClaimedJob;
import java.util.List;

/** Messages the server sends on a runner's channel; {@code event} names the type. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "event")
@JsonSubTypes({
    @JsonSubTypes.Type(value = ServerMessage.Ack.class, name = "ack"),
    @JsonSubTypes.Type(value = ServerMessage.Job.class, name = "job"),
    @JsonSubTypes.Type(value = ServerMessage.NoJob.class, name = "no_job"),
    @JsonSubTypes.Type(value = ServerMessage.Cancel.class, name = "cancel"),
    @JsonSubTypes.Type(value = ServerMessage.Update.class, name = "update"),
    @JsonSubTypes.Type(value = ServerMessage.Stale.class, name = "stale"),
    @JsonSubTypes.Type(value = ServerMessage.Drain.class, name = "drain"),
    @JsonSubTypes.Type(value = ServerMessage.Error.class, name = "error"),
    @JsonSubTypes.Type(value = ServerMessage.Welcome.class, name = "welcome"),
    @JsonSubTypes.Type(value = ServerMessage.PullToken.class, name = "pull_token"),
    @JsonSubTypes.Type(value = ServerMessage.Calibrate.class, name = "calibrate"),
})
public sealed interface ServerMessage {

    /**
     * A Baton extension (issue 41), the answer to the runner's {@code pull_token}: a fresh registry
     * pull token for this attempt ({@code token}), scoped like the claim's to the job's image and
     * refused by the registry once the job has ended.
     */
    record PullToken(JobUuid job, LeaseId lease, String token) implements ServerMessage {}

    /** Acknowledges a runner message; {@code job} names the job it was about, if any. */
    record Ack(JobUuid job) implements ServerMessage {}

    /** Hands a claimed job to the runner. */
    record Job(ClaimedJob job) implements ServerMessage {}

    /** The runner's poll timeout passed with nothing to run. */
    record NoJob() implements ServerMessage {}

    /** Stop this attempt within {@code deadlineSeconds} and answer {@code canceled}. */
    record Cancel(JobUuid job, LeaseId lease, String reason, int deadlineSeconds) implements ServerMessage {}

    /** Self-update to {@code version} from {@code url}, verified by SHA-256 {@code checksum}. */
    record Update(String version, String url, String checksum) implements ServerMessage {}

    /** The message named an attempt whose lease is not current; stop that work, do not resend. */
    record Stale(JobUuid job, LeaseId lease, String reason) implements ServerMessage {}

    /** Server-directed worker state (seed 002): quiet, terminate, or running again. */
    record Drain(DrainState state) implements ServerMessage {}

    /**
     * A Baton extension (issue 45, decision 0062): measure the machine's noise now. The runner runs
     * its calibration once it holds no job and its {@code ready} has been answered, asks for no job
     * meanwhile, and sends {@code calibration} as it does after a start. A runner that does not know
     * it (an older agent, a router) ignores it.
     */
    record Calibrate() implements ServerMessage {}

    /** A message the server could not accept (malformed, unknown event, invalid value); state unchanged. */
    record Error(String code, String message) implements ServerMessage {}

    /**
     * The first message on every connection: who the server authenticated this runner as and the
     * specs (slugs) it serves now, so the runner can say in its own log what it connected as, and
     * the largest message the server takes ({@code max_message_bytes}, its request_body_max_bytes;
     * absent from a router or an older server), so the runner cuts a result to fit before sending
     * it; and its read timeout ({@code heartbeat_timeout_seconds}: a runner silent this long is
     * lost; absent from a router or an older server), so an idle runner can heartbeat at a third of
     * it instead of every second (issue 45, decision 0051). It changes no state on the server.
     */
    record Welcome(String runner, String name, List<String> specs, Long maxMessageBytes, Long heartbeatTimeoutSeconds)
            implements ServerMessage {
        public Welcome {
            specs = specs == null ? List.of() : List.copyOf(specs);
        }

        /** Without the read timeout (a router, or a server before it was sent). */
        public Welcome(String runner, String name, List<String> specs, Long maxMessageBytes) {
            this(runner, name, specs, maxMessageBytes, null);
        }

        /** Without the message limit and the read timeout (a router, or a server before they were sent). */
        public Welcome(String runner, String name, List<String> specs) {
            this(runner, name, specs, null, null);
        }
    }
}

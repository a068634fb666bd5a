package dev.baton.broker;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.model.IterationResult;
import java.util.List;
import java.util.Map;

/**
 * Seed 003's messages, field for field, as transport A carries them in JSON (docs/protocol.md,
 * "Transport A"). Where Baton needs more than the seed says, an optional field is added and named
 * in the docs ({@code job_spec.baton}, {@code Complete.results}, {@code LeaseAccepted}).
 */
public final class LeaseMessages {
    private LeaseMessages() {}

    /** Published on {@code baton.leases.<spec>}: a lease offered to whichever runner of the spec acknowledges it first. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record LeaseGranted(
            String type,
            @JsonProperty("job_id") String jobId,
            @JsonProperty("run_id") String runId,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("lease_ttl_seconds") long leaseTtlSeconds,
            @JsonProperty("heartbeat_interval_seconds") long heartbeatIntervalSeconds,
            @JsonProperty("max_runtime_seconds") long maxRuntimeSeconds,
            @JsonProperty("job_spec") JobSpec jobSpec,
            @JsonProperty("cancel_token") String cancelToken) {}

    /** Seed 003's job_spec, filled from Baton's job; {@code baton} is Baton's own job as the runner channel sends it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobSpec(
            String name,
            String workdir,
            String image,
            List<String> steps,
            Map<String, String> env,
            List<ArtifactRule> artifacts,
            List<JsonNode> caches,
            JsonNode baton) {}

    public record ArtifactRule(
            String type, @JsonProperty("path_glob") String pathGlob) {}

    public record AckLease(
            String type,
            @JsonProperty("job_id") String jobId,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("runner_id") String runnerId,
            @JsonProperty("accepted_at") String acceptedAt) {}

    /** The answer to an AckLease that bound the lease (the seed names none): what the runner needs beyond the offer. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record LeaseAccepted(
            String type,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("job_id") String jobId,
            int attempt,
            @JsonProperty("oci_token") String ociToken,
            @JsonProperty("lease_ttl_seconds") long leaseTtlSeconds) {}

    /**
     * {@code progress} is kept on the lease and shown on the job while it runs (docs/api.md);
     * {@code log_cursor} is read and dropped (docs/protocol.md, "Differences from the reference protocols").
     */
    public record Heartbeat(
            String type,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("runner_id") String runnerId,
            Progress progress,
            @JsonProperty("log_cursor") JsonNode logCursor,
            String ts) {}

    /** Seed 003's best-effort progress of a Heartbeat. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Progress(
            Integer percent,
            @JsonProperty("current_step") String currentStep,
            @JsonProperty("step_index") Integer stepIndex,
            String message) {
        public Progress {
            if (percent != null && (percent < 0 || percent > 100))
                throw new IllegalArgumentException("percent must be 0 to 100, not " + percent);
            if (stepIndex != null && stepIndex < 0)
                throw new IllegalArgumentException("step_index must not be negative");
        }
    }

    /**
     * What a Complete or CancelAck says of the attempt beside its outcome, kept on the attempt
     * (docs/api.md, a job's {@code attempts}): the artifacts the runner uploaded, as references, and
     * its own timings. Absent parts are null.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record AttemptReport(List<ArtifactRef> artifacts, Timings timings) {
        static AttemptReport of(List<ArtifactRef> artifacts, Timings timings) {
            boolean none = (artifacts == null || artifacts.isEmpty()) && timings == null;
            return none
                    ? null
                    : new AttemptReport(artifacts == null || artifacts.isEmpty() ? null : artifacts, timings);
        }
    }

    public record HeartbeatAck(
            String type,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("extend_lease") boolean extendLease,
            @JsonProperty("new_lease_ttl_seconds") long newLeaseTtlSeconds,
            @JsonProperty("cancel_requested") boolean cancelRequested,
            @JsonProperty("cancel_deadline_seconds") long cancelDeadlineSeconds) {}

    /** The runner's own start and end of the execution, ISO-8601 instants as the seed shows them. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Timings(
            @JsonProperty("started_at") java.time.Instant startedAt,
            @JsonProperty("finished_at") java.time.Instant finishedAt) {}

    /** An artifact the runner uploaded, by reference (seed 003: artifact storage is outside the protocol). */
    public record ArtifactRef(String type, String uri) {
        public ArtifactRef {
            if (uri == null || uri.isBlank()) throw new IllegalArgumentException("an artifact needs its uri");
        }
    }

    /**
     * {@code results} is Baton's addition: per-iteration exit codes, output and files, as on the
     * runner channel; so is {@code failure} (issue 41): why a FAILED attempt failed, a FailureCode
     * wire name as in the channel's {@code failed}, so the server classifies both transports alike.
     */
    public record Complete(
            String type,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("runner_id") String runnerId,
            String status,
            @JsonProperty("exit_code") Integer exitCode,
            Timings timings,
            List<ArtifactRef> artifacts,
            String summary,
            List<IterationResult> results,
            String failure) {}

    public record CompleteAck(
            String type, @JsonProperty("lease_id") String leaseId, boolean accepted) {}

    public record CancelRequested(
            String type,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("job_id") String jobId,
            String reason,
            @JsonProperty("deadline_seconds") long deadlineSeconds,
            String ts) {}

    public record CancelAck(
            String type,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("runner_id") String runnerId,
            @JsonProperty("final_status") String finalStatus,
            String ts,
            List<ArtifactRef> artifacts,
            String summary,
            List<IterationResult> results) {}

    /**
     * Baton's addition (the seed's log goes to a store outside its protocol): a chunk of the job's
     * live output, as the runner channel's {@code log} message carries it, so a queue runner's log
     * is followed live too. {@code seq} counts the lease's chunks from 1; a chunk is text (at most
     * 16 KiB of UTF-8) or a marker of {@code dropped} bytes not sent (docs/protocol.md, "log").
     */
    public record LogChunk(
            String type,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("runner_id") String runnerId,
            Long seq,
            LogStream stream,
            Integer iteration,
            String text,
            Long dropped) {
        /** The runner channel's message for this chunk; a value out of its bounds is the client's error. */
        public RunnerMessage.Log toLog(JobUuid job, LeaseId lease) {
            return new RunnerMessage.Log(
                    job, lease, seq, stream, iteration == null ? 0 : iteration, text == null ? "" : text, dropped);
        }
    }

    /** The answer to a LogChunk under a live lease: {@code seq} is the chunk's, kept or (a resend) already kept. */
    public record LogAck(
            String type, @JsonProperty("lease_id") String leaseId, long seq) {}

    /**
     * The seed's stale signal. As the answer to a Heartbeat it also carries the seed's
     * {@code extend_lease=false} and {@code stale=true} ("Heartbeat", Semantics), so a runner that
     * reads only HeartbeatAck's fields stops too; on the other routes both are absent.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record StaleLease(
            String type,
            @JsonProperty("lease_id") String leaseId,
            String reason,
            @JsonProperty("extend_lease") Boolean extendLease,
            Boolean stale) {
        /** This stale signal as the answer to a Heartbeat. */
        public StaleLease toHeartbeat() {
            return new StaleLease(type, leaseId, reason, false, true);
        }
    }

    /**
     * Baton's addition, the answer to {@code GET /v0/runners/{runner}/leases/subjects}: where this
     * runner pulls its leases (one durable consumer per spec it serves on the broker), the
     * subject its CancelRequested arrive on, and the inbox prefix its NATS connection must use for
     * replies (pulled offers among them): its NATS user may subscribe only below it.
     */
    public record LeaseSubjects(
            String type,
            @JsonProperty("runner_id") String runnerId,
            String stream,
            List<SpecQueue> specs,
            @JsonProperty("control_subject") String controlSubject,
            @JsonProperty("inbox_prefix") String inboxPrefix) {}

    public record SpecQueue(String spec, String subject, String consumer) {}

    /** Why a lease is stale; the runner stops that work and does not send Complete again. */
    public static final class Reasons {
        private Reasons() {}

        public static final String EXPIRED = "LEASE_EXPIRED";
        public static final String REVOKED = "LEASE_REVOKED";
        public static final String TAKEN = "LEASE_TAKEN";
        public static final String SUPERSEDED = "LEASE_SUPERSEDED";
        public static final String UNKNOWN = "UNKNOWN_LEASE";
        public static final String FINISHED = "JOB_FINISHED";
    }

    public static StaleLease stale(String lease, String reason) {
        return new StaleLease("StaleLease", lease, reason, null, null);
    }
}

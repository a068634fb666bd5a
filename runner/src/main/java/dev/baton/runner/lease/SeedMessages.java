package dev.baton.runner.lease;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.baton.protocol.model.IterationResult;
import java.util.List;

/**
 * What this runner sends on the NATS transport: seed 003's runner messages, field for field, plus
 * Baton's {@code results} (docs/protocol.md, "Transport A"). What it receives is read as JSON
 * where it is used ({@code LeaseGranted} in {@link LeaseGrant}, answers in {@link LeaseServer}).
 */
final class SeedMessages {
    private SeedMessages() {}

    record AckLease(
            String type,
            @JsonProperty("job_id") String jobId,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("runner_id") String runnerId,
            @JsonProperty("accepted_at") String acceptedAt) {
        AckLease(String jobId, String leaseId, String runnerId, String acceptedAt) {
            this("AckLease", jobId, leaseId, runnerId, acceptedAt);
        }
    }

    record Progress(@JsonProperty("current_step") String currentStep, String message) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Heartbeat(
            String type,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("runner_id") String runnerId,
            Progress progress,
            String ts) {
        Heartbeat(String leaseId, String runnerId, Progress progress, String ts) {
            this("Heartbeat", leaseId, runnerId, progress, ts);
        }
    }

    record Timings(
            @JsonProperty("started_at") String startedAt,
            @JsonProperty("finished_at") String finishedAt) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Complete(
            String type,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("runner_id") String runnerId,
            String status,
            @JsonProperty("exit_code") Integer exitCode,
            Timings timings,
            List<Object> artifacts,
            String summary,
            List<IterationResult> results,
            String failure) {
        Complete(
                String leaseId, String runnerId, LeaseOutcome outcome, Timings timings, List<IterationResult> results) {
            this(
                    "Complete",
                    leaseId,
                    runnerId,
                    outcome.status(),
                    outcome.exitCode(),
                    timings,
                    List.of(),
                    outcome.summary(),
                    results,
                    outcome.failure() == null ? null : outcome.failure().wireName());
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record CancelAck(
            String type,
            @JsonProperty("lease_id") String leaseId,
            @JsonProperty("runner_id") String runnerId,
            @JsonProperty("final_status") String finalStatus,
            String ts,
            List<Object> artifacts,
            String summary,
            List<IterationResult> results) {
        CancelAck(String leaseId, String runnerId, String ts, String summary, List<IterationResult> results) {
            this("CancelAck", leaseId, runnerId, "CANCELED", ts, List.of(), summary, results);
        }
    }
}

package dev.baton.api;

import dev.baton.dispatch.PendingReason;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.id.RunnerUuid;
import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.JobOutput;
import dev.baton.protocol.model.MachineFingerprint;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A job as project members see it (seed 001's JsonJob): typed UUIDs for its report, spec and
 * runner, never internal ids, and never the lease (a capability of the runner holding it).
 * {@code output} is present only on a single-job read once the runner's output is stored.
 * While the job is pending, {@code pendingReason}, {@code queuePosition} and {@code predictedStart}
 * say why it waits, where it stands and when it may start (docs/api.md); {@code attempts} (single
 * read only) lists every claim with what its runner said when it declined. {@code fingerprint}
 * (single job and report reads) is the machine state of the attempt that started, as its runner
 * read it just before the workload ran (docs/scheduling.md); each attempt also carries its own.
 * {@code canaryFor} is the quarantined runner a canary job is for (docs/scheduling.md, "Canary release").
 * {@code progress} (single job read, while it runs under a transport-A lease) is what its runner
 * last reported in a Heartbeat: seed 003's {@code percent}, {@code current_step},
 * {@code step_index}, {@code message}.
 */
public record JobView(
        JobUuid uuid,
        ProjectUuid project,
        ReportUuid report,
        SpecUuid spec,
        RunnerUuid runner,
        JobStatus status,
        int priority,
        int timeout,
        JobConfig config,
        int attempt,
        int requeues,
        Instant claimed,
        Instant started,
        Instant completed,
        Instant lastHeartbeat,
        String error,
        Instant created,
        Instant modified,
        JobOutput output,
        String errorCode,
        Integer queueTimeout,
        PendingReason pendingReason,
        Integer queuePosition,
        Instant predictedStart,
        List<AttemptView> attempts,
        MachineFingerprint fingerprint,
        Map<String, String> requireLabels,
        Map<String, String> preferLabels,
        RunnerUuid canaryFor,
        com.fasterxml.jackson.databind.JsonNode progress,
        RetryView retry) {

    /**
     * The job's retry policy (single job read, issue 41): as submitted, the older
     * {@code retry_when_runner_lost} shown mapped onto {@code on}; a job without one shows one attempt.
     */
    public record RetryView(int maxAttempts, int backoffSeconds, List<String> on, List<Integer> finalExitCodes) {}

    /**
     * One claim of the job: its runner, how it ended, the runner's decline code and reason if it
     * declined, and the machine fingerprint its runner sent (with {@code running}, or with a
     * {@code noisy_machine} decline). {@code warm}: whether the runner held the job's image when it
     * claimed it (image affinity), null when it reported no images. {@code artifacts} and
     * {@code timings}: what a transport-A runner's Complete or CancelAck said of the attempt (seed
     * 003's {@code [{"type", "uri"}]} and {@code {"started_at", "finished_at"}}), null otherwise.
     * {@code endReason} says why it ended (issue 41: {@code runner_lost}, {@code infrastructure},
     * {@code failure} for a started attempt that failed, else its outcome); a failed one says
     * whether it was {@code retried} and, if not, why ({@code notRetried}), with the failing
     * iteration's {@code exitCode}. {@code machine}: the machine that ran the attempt (issue 41;
     * behind a router, the runner behind it), null for attempts from before machines were recorded.
     */
    public record AttemptView(
            int number,
            RunnerUuid runner,
            String outcome,
            Instant claimed,
            Instant started,
            Instant ended,
            String declineCode,
            String declineReason,
            MachineFingerprint fingerprint,
            Boolean warm,
            String transport,
            com.fasterxml.jackson.databind.JsonNode artifacts,
            com.fasterxml.jackson.databind.JsonNode timings,
            MachineView machine,
            String endReason,
            Integer exitCode,
            Boolean retried,
            String notRetried) {}
}

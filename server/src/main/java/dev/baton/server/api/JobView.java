package dev.baton.server.api;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.id.RunnerUuid;
import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.JobOutput;
import java.time.Instant;

/**
 * A job as project members see it (seed 001's JsonJob): typed UUIDs for its report, spec and
 * runner, never internal ids, and never the lease (a capability of the runner holding it).
 * {@code output} is present only on a single-job read once the runner's output is stored.
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
        JobOutput output) {}

package dev.baton.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.dispatch.JobQueue;
import dev.baton.dispatch.QueueStatus;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.id.RunnerUuid;
import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.JobOutput;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.store.Attempt;
import dev.baton.store.AttemptEnd;
import dev.baton.store.FailureKind;
import dev.baton.store.Job;
import dev.baton.store.JobLabels;
import dev.baton.store.KnownMachine;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Runner;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds {@link JobView}s for one request, looking each spec, runner and report up once. A
 * pending job gets its queue status from dispatch ({@link JobQueue}).
 */
final class JobViews {
    private final Store store;
    private final Project project;
    private final JobQueue queue;
    private final Map<Long, SpecUuid> specs = new HashMap<>();
    private final Map<Long, RunnerUuid> runners = new HashMap<>();
    private final Map<Long, ReportUuid> reports = new HashMap<>();
    private final Map<Long, Spec> knownSpecs = new HashMap<>();
    private final Map<Long, JobLabels> knownLabels = new HashMap<>();

    JobViews(Store store, Project project) {
        this(store, project, JobQueue.UNKNOWN);
    }

    JobViews(Store store, Project project, JobQueue queue) {
        this.store = store;
        this.project = project;
        this.queue = queue;
    }

    /** A report the caller has already read (the submission's own) is not read again. */
    JobViews knowing(Report report) {
        reports.put(report.id(), report.uuid());
        return this;
    }

    /**
     * The spec and labels of a job the caller has just stored (a submission): neither the view
     * nor the queue status reads them again.
     */
    JobViews knowing(Job job, Spec spec, JobLabels labels) {
        if (spec.id() != job.specId())
            throw new IllegalArgumentException("spec " + spec.id() + " is not the spec of job " + job.uuid());
        specs.put(spec.id(), spec.uuid());
        knownSpecs.put(spec.id(), spec);
        knownLabels.put(job.id(), labels);
        return this;
    }

    JobView of(Job j, JobOutput output) {
        return of(j, output, false);
    }

    /** With {@code withAttempts}, the view lists the job's attempts (a single-job read). */
    JobView of(Job j, JobOutput output, boolean withAttempts) {
        SpecUuid spec = specs.computeIfAbsent(
                j.specId(), id -> store.specs().findSpec(id).map(Spec::uuid).orElse(null));
        RunnerUuid runner = j.runnerId() == null ? null : runner(j.runnerId());
        ReportUuid report = reports.computeIfAbsent(
                j.reportId(),
                id -> store.runs().findReport(id).map(Report::uuid).orElse(null));
        JobLabels known = knownLabels.get(j.id());
        QueueStatus q = queue.status(j, knownSpecs.get(j.specId()), known).orElse(null);
        JobLabels labels = known != null ? known : store.runs().jobLabels(j.id());
        Map<Integer, String> reports = withAttempts ? store.leaseOffers().reports(j.id()) : Map.of();
        Map<Integer, AttemptEnd> ends = withAttempts ? store.runs().attemptEnds(j.id()) : Map.of();
        Map<Integer, KnownMachine> machines = withAttempts ? store.runners().attemptMachines(j.id()) : Map.of();
        List<JobView.AttemptView> attempts = withAttempts
                ? store.runs().attempts(j.id()).stream()
                        .map(a -> attempt(a, reports.get(a.number()), ends.get(a.number()), machines.get(a.number())))
                        .toList()
                : null;
        JobView.RetryView retry = withAttempts
                ? store.runs().retryPolicy(j.id()).map(JobViews::retryView).orElse(null)
                : null;
        // Progress lives on the transport-A lease; read for a single job in flight only, never per list row.
        JsonNode progress = withAttempts && j.status().inFlight() && j.lease() != null
                ? store.leaseOffers().progress(j.lease()).map(JobViews::tree).orElse(null)
                : null;
        return new JobView(
                j.uuid(),
                project.uuid(),
                report,
                spec,
                runner,
                j.status(),
                j.priority(),
                j.timeout(),
                j.config(),
                j.attempt(),
                j.requeues(),
                j.claimed(),
                j.started(),
                j.completed(),
                j.lastHeartbeat(),
                j.error(),
                j.created(),
                j.modified(),
                output,
                j.errorCode(),
                j.queueTimeout(),
                q == null ? null : q.reason(),
                q == null ? null : q.position(),
                q == null ? null : q.predictedStart(),
                attempts,
                attempts == null ? null : startedFingerprint(attempts),
                labels.required().isEmpty() ? null : labels.required(),
                labels.preferred().isEmpty() ? null : labels.preferred(),
                j.canaryRunnerId() == null ? null : runner(j.canaryRunnerId()),
                progress,
                retry);
    }

    /** The fingerprint of the latest attempt that started: the machine the job's numbers come from. */
    private static MachineFingerprint startedFingerprint(List<JobView.AttemptView> attempts) {
        for (JobView.AttemptView a : attempts.reversed()) {
            if (a.started() != null) return a.fingerprint();
        }
        return null;
    }

    private JobView.AttemptView attempt(Attempt a, String leaseReport, AttemptEnd end, KnownMachine machine) {
        JsonNode report = leaseReport == null ? null : tree(leaseReport);
        return new JobView.AttemptView(
                a.number(),
                runner(a.runnerId()),
                a.outcome() == null ? null : a.outcome().name().toLowerCase(Locale.ROOT),
                a.claimed(),
                a.started(),
                a.ended(),
                a.declineCode(),
                a.declineReason(),
                fingerprint(a),
                a.warm(),
                dev.baton.store.AttemptTransport.of(store, a),
                report == null ? null : report.get("artifacts"),
                report == null ? null : report.get("timings"),
                MachineView.of(machine),
                endReason(a, end),
                end == null ? null : end.exitCode(),
                end == null ? null : end.retried(),
                end == null || end.notRetried() == null
                        ? null
                        : end.notRetried().wireName());
    }

    /**
     * Why an attempt ended: the kind of a failure the store judged (issue 41), else its outcome —
     * a lost runner and a failure from before the judgement kept (V26) read as their kinds.
     */
    private static String endReason(Attempt a, AttemptEnd end) {
        if (end != null && end.kind() != null) return end.kind().wireName();
        if (a.outcome() == null) return null;
        return switch (a.outcome()) {
            case LOST -> FailureKind.RUNNER_LOST.wireName();
            case FAILED -> FailureKind.FAILURE.wireName();
            default -> a.outcome().name().toLowerCase(Locale.ROOT);
        };
    }

    private static JobView.RetryView retryView(RetryPolicy p) {
        return new JobView.RetryView(
                p.maxAttempts(),
                p.backoffSeconds(),
                p.on().stream().map(FailureKind::wireName).toList(),
                List.copyOf(p.finalExitCodes()));
    }

    /** JSON the server wrote itself (from a validated transport-A message); unreadable text is left out rather than failing the read. */
    private static JsonNode tree(String json) {
        try {
            return Wire.mapper().readTree(json);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /**
     * The stored fingerprint, read with the protocol's codec; one this version cannot read (a
     * newer runner's field out of today's bounds) is left out rather than failing the whole read.
     */
    private static MachineFingerprint fingerprint(Attempt a) {
        if (a.fingerprint() == null) return null;
        try {
            return Wire.mapper().readValue(a.fingerprint(), MachineFingerprint.class);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return null;
        }
    }

    private RunnerUuid runner(long id) {
        return runners.computeIfAbsent(
                id, r -> store.runners().findRunner(r).map(Runner::uuid).orElse(null));
    }
}

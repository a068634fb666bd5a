package dev.baton.console;

import dev.baton.console.Views.AttemptRow;
import dev.baton.console.Views.IterationRow;
import dev.baton.console.Views.JobPage;
import dev.baton.console.Views.JobRef;
import dev.baton.console.Views.MetricRow;
import dev.baton.console.Views.OutputFile;
import dev.baton.console.Views.TimelineEntry;
import dev.baton.core.adapter.Metrics;
import dev.baton.core.adapter.ReportResults;
import dev.baton.dispatch.JobQueue;
import dev.baton.dispatch.QueueStatus;
import dev.baton.dispatch.output.OutputStore;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.store.Attempt;
import dev.baton.store.AttemptEnd;
import dev.baton.store.Job;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.Role;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.web.auth.CancelRight;
import dev.baton.web.auth.Principal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A job's own page, read from the store, the queue and the job's stored output: its attempts and
 * timeline, where it waits when pending, each iteration's exit code, the files it collected, its
 * metrics and their charts, and what the viewer may do with it (cancel, run again). Also the two
 * reads behind the page's links: a collected file whole, and the body that submits the job again.
 */
final class JobDetail {
    /** Output file text shown inline; the rest is in the API's job output. */
    static final int FILE_PREVIEW_BYTES = 16 * 1024;

    private final Store store;
    private final JobQueue queue;
    private final OutputStore outputs;
    private final JobListing listing;

    JobDetail(Store store, JobQueue queue, OutputStore outputs, JobListing listing) {
        this.store = store;
        this.queue = queue;
        this.outputs = outputs;
        this.listing = listing;
    }

    /** The job's page as {@code viewer} sees it: a Cancel button only when the job can be canceled and the viewer may. */
    JobPage page(Project project, Job job, Principal viewer) {
        Names names = new Names(store);
        List<Attempt> attempts = store.runs().attempts(job.id());
        Optional<QueueStatus> q = job.status() == JobStatus.PENDING ? queue.status(job) : Optional.empty();
        Report report = store.runs().findReport(job.reportId()).orElse(null);
        ReportResults parsed =
                report == null ? null : ReportResults.fromJson(report.results()).orElse(null);
        JobOutput output =
                outputs.get(project.uuid(), job.uuid(), job.attempt()).orElse(null);
        Map<Integer, AttemptEnd> ends = store.runs().attemptEnds(job.id());
        List<AttemptRow> attemptRows = attempts.stream()
                .map(a -> new AttemptRow(
                        a.number(),
                        names.runner(a.runnerId()),
                        LeaseFingerprint.of(a.lease()),
                        a.outcome() == null
                                ? (job.status().inFlight() && a.number() == job.attempt() ? "current" : "—")
                                : a.outcome().name().toLowerCase(Locale.ROOT),
                        a.claimed(),
                        a.started(),
                        a.ended(),
                        a.declineCode() == null ? null : a.declineCode() + ": " + a.declineReason(),
                        dev.baton.store.AttemptTransport.of(store, a),
                        retryText(ends.get(a.number()))))
                .toList();
        boolean cancelable = (job.status() == JobStatus.PENDING || job.status().inFlight())
                && CancelRight.mayCancel(viewer, project, () -> store.access().jobSubmitter(job.id()));
        return new JobPage(
                project.slug().value(),
                project.name(),
                listing.row(project, job, names),
                job.errorCode(),
                job.error(),
                q.map(s -> s.reason().message()).orElse(null),
                q.map(QueueStatus::position).orElse(null),
                q.map(QueueStatus::predictedStart).orElse(null),
                timeline(job, attempts, names),
                attemptRows,
                iterations(output, parsed),
                files(output, ref(project, job) + "/files/"),
                metrics(parsed == null ? null : parsed.results()),
                IterationCharts.of(parsed),
                report == null ? null : report.error(),
                cancelable,
                job.config().digest() == null ? null : job.config().digest().toString(),
                command(job),
                maySubmit(viewer, project),
                // A paired run's pairs and verdict (issue 45), as the report's API answer has them.
                job.config().paired() == null || parsed == null
                        ? null
                        : dev.baton.alerts.PairedVerdict.of(job.config().paired(), parsed.iterations()),
                baseline(job.config().paired()));
    }

    /** What a paired run's baseline runs (issue 45): its image when it has one, then its command. */
    private static List<String> baseline(dev.baton.protocol.model.PairedConfig paired) {
        if (paired == null) return List.of();
        List<String> words = new ArrayList<>();
        if (paired.baselineImage() != null) words.add("in image " + paired.baselineImage() + ":");
        words.addAll(paired.baselineCmd() == null ? List.of("(the image's own command)") : paired.baselineCmd());
        return words;
    }

    private static List<String> command(Job job) {
        List<String> command = new ArrayList<>();
        if (job.config().entrypoint() != null) command.addAll(job.config().entrypoint());
        if (job.config().cmd() != null) command.addAll(job.config().cmd());
        return command;
    }

    /**
     * The job's state changes with their times, as far as the store keeps them: created, each
     * attempt's claim, start and end, and the job's own end. Baton keeps no separate history table.
     */
    private static List<TimelineEntry> timeline(Job job, List<Attempt> attempts, Names names) {
        List<TimelineEntry> t = new ArrayList<>();
        t.add(new TimelineEntry(job.created(), "submitted: pending"));
        for (Attempt a : attempts) {
            String runner = names.runner(a.runnerId());
            t.add(new TimelineEntry(a.claimed(), "attempt " + a.number() + " claimed by " + runner));
            if (a.started() != null)
                t.add(new TimelineEntry(a.started(), "attempt " + a.number() + " running on " + runner));
            if (a.ended() != null && a.outcome() != null) {
                t.add(new TimelineEntry(
                        a.ended(),
                        "attempt " + a.number() + " ended: "
                                + a.outcome().name().toLowerCase(Locale.ROOT)));
            }
        }
        if (!job.status().inFlight() && job.status() != JobStatus.PENDING) {
            Instant end =
                    job.completed() != null && (job.status() == JobStatus.COMPLETED) ? job.completed() : job.modified();
            if (job.status() == JobStatus.PROCESSED && job.completed() != null)
                t.add(new TimelineEntry(job.completed(), "completed"));
            t.add(new TimelineEntry(end, job.status().wireName() + (job.error() == null ? "" : ": " + job.error())));
        }
        t.sort(Comparator.comparing(TimelineEntry::at, Comparator.nullsLast(Comparator.naturalOrder())));
        return t;
    }

    private static List<IterationRow> iterations(JobOutput output, ReportResults parsed) {
        if (output == null || output.results() == null) return List.of();
        List<IterationRow> rows = new ArrayList<>();
        for (int i = 0; i < output.results().size(); i++) {
            IterationResult r = output.results().get(i);
            String error = null;
            if (parsed != null
                    && parsed.iterations() != null
                    && i < parsed.iterations().size())
                error = parsed.iterations().get(i).error();
            rows.add(new IterationRow(i, r.exitCode(), error));
        }
        return rows;
    }

    private static String ref(Project project, Job job) {
        return new JobRef(project.slug().value(), job.uuid().toString()).href();
    }

    /** Whether the viewer may submit runs to the project (the API's rule for POST /v0/run): the admin, or a submitter or above. */
    static boolean maySubmit(Principal viewer, Project project) {
        return switch (viewer) {
            case Principal.Admin a -> true;
            case Principal.TokenHolder holder ->
                holder.roleOn(project).map(r -> r.includes(Role.SUBMITTER)).orElse(false);
        };
    }

    /** A collected file of the job's final attempt, whole. */
    Optional<String> file(Project project, Job job, int iteration, String path) {
        return outputs.get(project.uuid(), job.uuid(), job.attempt())
                .filter(o -> o.results() != null
                        && iteration >= 0
                        && iteration < o.results().size())
                .map(o -> o.results().get(iteration).output())
                .map(files -> files == null ? null : files.get(path));
    }

    /** How a failed attempt was judged (issue 41): "infrastructure · retried", "failure (exit 1) · not retried: not_in_retry_on". */
    static String retryText(AttemptEnd end) {
        if (end == null || end.kind() == null) return null;
        String kind = end.kind().wireName() + (end.exitCode() == null ? "" : " (exit " + end.exitCode() + ")");
        if (end.retried()) return kind + " · retried";
        return kind + " · not retried"
                + (end.notRetried() == null ? "" : ": " + end.notRetried().wireName());
    }

    /** The /v0/run body that submits the job again with the same configuration. */
    Map<String, Object> rerun(Project project, Job job) {
        Report report = store.runs().findReport(job.reportId()).orElseThrow();
        Spec spec = store.specs().findSpec(job.specId()).orElseThrow();
        return Rerun.body(
                project, job, report, spec, store.runs().retryPolicy(job.id()).orElse(null));
    }

    private static List<OutputFile> files(JobOutput output, String href) {
        if (output == null || output.results() == null) return List.of();
        List<OutputFile> files = new ArrayList<>();
        for (int i = 0; i < output.results().size(); i++) {
            Map<String, String> out = output.results().get(i).output();
            if (out == null) continue;
            for (var e : new java.util.TreeMap<>(out).entrySet()) {
                String content = e.getValue() == null ? "" : e.getValue();
                long size = content.getBytes(StandardCharsets.UTF_8).length;
                boolean truncated = content.length() > FILE_PREVIEW_BYTES;
                files.add(new OutputFile(
                        i,
                        e.getKey(),
                        size,
                        truncated ? content.substring(0, FILE_PREVIEW_BYTES) : content,
                        truncated,
                        href + i + "/" + e.getKey()));
            }
        }
        return files;
    }

    private static List<MetricRow> metrics(Metrics results) {
        if (results == null) return List.of();
        List<MetricRow> rows = new ArrayList<>();
        results.benchmarks()
                .forEach((benchmark, measures) -> measures.forEach((measure, m) ->
                        rows.add(new MetricRow(benchmark, measure, m.value(), m.lowerValue(), m.upperValue()))));
        return rows;
    }
}

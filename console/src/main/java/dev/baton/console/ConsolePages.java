package dev.baton.console;

import dev.baton.console.Views.AlertsPage;
import dev.baton.console.Views.AttemptRow;
import dev.baton.console.Views.Chart;
import dev.baton.console.Views.ComparePage;
import dev.baton.console.Views.IterationRow;
import dev.baton.console.Views.JobPage;
import dev.baton.console.Views.JobRef;
import dev.baton.console.Views.JobsPage;
import dev.baton.console.Views.MetricRow;
import dev.baton.console.Views.MetricsPage;
import dev.baton.console.Views.OutputFile;
import dev.baton.console.Views.PlotData;
import dev.baton.console.Views.Point;
import dev.baton.console.Views.ProjectRow;
import dev.baton.console.Views.QueueRow;
import dev.baton.console.Views.RegistryPage;
import dev.baton.console.Views.RepositoryRow;
import dev.baton.console.Views.RunnerRow;
import dev.baton.console.Views.SpecRow;
import dev.baton.console.Views.TimelineEntry;
import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.Metrics;
import dev.baton.core.adapter.ReportResults;
import dev.baton.core.config.ShippedVersion;
import dev.baton.dispatch.JobQueue;
import dev.baton.dispatch.QueueStatus;
import dev.baton.dispatch.channel.RunnerActivity;
import dev.baton.dispatch.output.OutputStore;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.registry.Images;
import dev.baton.store.Attempt;
import dev.baton.store.AttemptEnd;
import dev.baton.store.Job;
import dev.baton.store.JobFilter;
import dev.baton.store.KnownMachine;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.Role;
import dev.baton.store.Runner;
import dev.baton.store.RunnerFilter;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.web.auth.CancelRight;
import dev.baton.web.auth.Principal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * Reads what each console page shows from the store and from dispatch (which runners are
 * connected, what they hold, where a pending job stands). Reads only: every change the console
 * makes goes through the /v0 API ({@link ConsoleApi}).
 */
public final class ConsolePages {
    /** Recent jobs per spec and project read for the spec page's medians. */
    static final int RECENT = 50;
    /** Output file text shown inline; the rest is in the API's job output. */
    static final int FILE_PREVIEW_BYTES = 16 * 1024;

    private final Store store;
    private final JobQueue queue;
    private final LongFunction<Optional<RunnerActivity>> activity;
    private final OutputStore outputs;
    private final Images images;
    private final JobListing listing;
    private final Comparison comparison;
    private final AlertPages alerts;
    private final MetricHistory history;

    public ConsolePages(
            Store store,
            JobQueue queue,
            LongFunction<Optional<RunnerActivity>> activity,
            OutputStore outputs,
            Images images) {
        this.store = store;
        this.queue = queue;
        this.activity = activity;
        this.listing = new JobListing(store);
        this.alerts = new AlertPages(store);
        this.comparison = new Comparison(store, alerts);
        this.history = new MetricHistory(store, alerts);
        this.outputs = outputs;
        this.images = images;
    }

    // ---- runners ---------------------------------------------------------------------------------

    List<RunnerRow> runners() {
        List<RunnerRow> rows = new ArrayList<>();
        Map<Long, Project> projects = new HashMap<>();
        Map<Long, KnownMachine> machines = store.runners().latestMachines();
        for (Runner r : store.runners().listRunners(new RunnerFilter(null, null, true))) {
            String specs = String.join(
                    ", ",
                    store.specs().runnerSpecs(r.id()).stream()
                            .map(s -> s.slug().value())
                            .toList());
            Optional<RunnerActivity> live = activity.apply(r.id());
            List<JobRef> jobs = live.map(a -> a.jobs().stream()
                            .map(j -> ref(j, projects))
                            .flatMap(Optional::stream)
                            .toList())
                    .orElse(List.of());
            String state;
            String detail;
            if (r.isArchived()) {
                state = "archived";
                detail = "since " + Format.time(r.archived());
            } else if (r.isQuarantined()) {
                // Before connected/busy: it takes no new jobs whatever its channel says (docs/scheduling.md).
                state = "quarantined";
                detail = "since " + Format.time(r.quarantined()) + ": " + r.quarantineReason()
                        + (jobs.isEmpty() ? "" : "; finishing " + jobs.size() + " job(s)");
            } else if (live.isEmpty()) {
                state = "offline";
                detail = r.lastHeartbeat() == null ? "never connected" : "since " + Format.time(r.lastHeartbeat());
            } else if (live.get().drainState() != DrainState.RUNNING) {
                state = "draining";
                detail = live.get().drainState().name().toLowerCase(Locale.ROOT)
                        + (jobs.isEmpty() ? "" : ", finishing " + jobs.size() + " job(s)");
            } else if (!jobs.isEmpty()) {
                state = "busy";
                detail = jobs.size() + " job(s)"
                        + (live.get().freeSlots() > 0 ? ", " + slots(live.get().freeSlots()) + " free" : "");
            } else if (live.get().freeSlots() > 0) {
                state = "idle";
                detail = "waiting for work, " + slots(live.get().freeSlots());
            } else {
                state = "connected";
                detail = "not asking for work";
            }
            rows.add(new RunnerRow(
                    r.slug().value(),
                    r.name(),
                    state,
                    detail,
                    jobs,
                    specs,
                    r.lastHeartbeat(),
                    live.map(RunnerActivity::connected).orElse(null),
                    r.isArchived(),
                    live.isPresent(),
                    r.isQuarantined(),
                    String.join(
                            ", ",
                            store.runners().runnerLabels(r.id()).effective().entrySet().stream()
                                    .map(e -> e.getKey() + "=" + e.getValue())
                                    .toList()),
                    MachineText.of(machines.get(r.id()), ShippedVersion.value())));
        }
        return rows;
    }

    private static String slots(int n) {
        return n == 1 ? "1 slot" : n + " slots";
    }

    private Optional<JobRef> ref(JobUuid uuid, Map<Long, Project> projects) {
        return store.runs()
                .findJob(uuid)
                .map(j -> new JobRef(project(j.projectId(), projects).slug().value(), uuid.toString()));
    }

    private Project project(long id, Map<Long, Project> cache) {
        return cache.computeIfAbsent(
                id, p -> store.organizations().findProject(p).orElseThrow());
    }

    // ---- specs -----------------------------------------------------------------------------------

    List<SpecRow> specs() {
        List<Spec> specs = store.specs().listSpecs(false);
        Map<Long, long[]> serving = new HashMap<>(); // spec → {serving, connected}
        for (Runner r : store.runners().listRunners(new RunnerFilter(null, null, false))) {
            boolean connected = activity.apply(r.id()).isPresent();
            for (Spec s : store.specs().runnerSpecs(r.id())) {
                long[] c = serving.computeIfAbsent(s.id(), k -> new long[2]);
                c[0]++;
                if (connected) c[1]++;
            }
        }
        Map<Long, Long> queued = new HashMap<>();
        for (Job j : store.runs().pendingJobs()) queued.merge(j.specId(), 1L, Long::sum);
        Map<Long, Long> running = new HashMap<>();
        for (Job j : store.liveness().inFlightJobs()) running.merge(j.specId(), 1L, Long::sum);
        List<Project> projects = store.organizations().listProjects();
        List<SpecRow> rows = new ArrayList<>();
        for (Spec s : specs) {
            // Recent jobs of the spec, newest first across projects (the store lists jobs per project).
            List<Job> recent = new ArrayList<>();
            for (Project p : projects)
                recent.addAll(store.runs().listJobs(p.id(), new JobFilter(null, s.id(), null, RECENT, 0)));
            recent.sort(Comparator.comparing(Job::created).reversed());
            List<Job> sample = recent.subList(0, Math.min(RECENT, recent.size()));
            List<Duration> waits = sample.stream()
                    .filter(j -> j.started() != null)
                    .map(j -> Duration.between(j.created(), j.started()))
                    .toList();
            List<Duration> runs = sample.stream()
                    .filter(j -> j.started() != null && j.completed() != null)
                    .map(j -> Duration.between(j.started(), j.completed()))
                    .toList();
            long[] c = serving.getOrDefault(s.id(), new long[2]);
            String shape = s.architecture() + " · " + s.cpu() + " CPU · " + Format.bytes(s.memory()) + " memory · "
                    + Format.bytes(s.disk()) + " disk" + (s.network() ? " · network" : "");
            rows.add(new SpecRow(
                    s.slug().value(),
                    s.name(),
                    shape,
                    c[0],
                    c[1],
                    queued.getOrDefault(s.id(), 0L),
                    running.getOrDefault(s.id(), 0L),
                    median(waits),
                    median(runs),
                    sample.size()));
        }
        return rows;
    }

    static Duration median(List<Duration> values) {
        if (values.isEmpty()) return null;
        List<Duration> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1
                ? sorted.get(n / 2)
                : sorted.get(n / 2 - 1).plus(sorted.get(n / 2)).dividedBy(2);
    }

    // ---- queue -----------------------------------------------------------------------------------

    List<QueueRow> queue() {
        Map<Long, Project> projects = new HashMap<>();
        Map<Long, String> specs = new HashMap<>();
        List<QueueRow> rows = new ArrayList<>();
        int order = 0;
        for (Job j : store.runs().pendingJobs()) {
            Optional<QueueStatus> q = queue.status(j);
            rows.add(new QueueRow(
                    ++order,
                    new JobRef(
                            project(j.projectId(), projects).slug().value(),
                            j.uuid().toString()),
                    specs.computeIfAbsent(
                            j.specId(),
                            id -> store.specs()
                                    .findSpec(id)
                                    .map(s -> s.slug().value())
                                    .orElse("?")),
                    j.priority(),
                    j.created(),
                    q.map(QueueStatus::position).orElse(null),
                    q.map(QueueStatus::predictedStart).orElse(null),
                    q.map(s -> s.reason().message()).orElse(null)));
        }
        return rows;
    }

    // ---- projects and jobs -----------------------------------------------------------------------

    List<ProjectRow> projects(java.util.function.Predicate<Project> readable) {
        return store.organizations().listProjects().stream()
                .filter(readable)
                .map(p -> new ProjectRow(p.slug().value(), p.name(), p.uuid().toString()))
                .toList();
    }

    JobsPage jobs(Project project, JobListing.Filter filter, int offset) {
        return listing.page(project, filter, offset);
    }

    /** The job's page as {@code viewer} sees it: a Cancel button only when the job can be canceled and the viewer may. */
    JobPage job(Project project, Job job, Principal viewer) {
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
                charts(parsed),
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

    ComparePage compare(Project project, Job job) {
        return comparison.compare(project, job);
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

    /** One chart per benchmark and measure with its value in each iteration that parsed. */
    static List<Chart> charts(ReportResults parsed) {
        if (parsed == null || parsed.iterations() == null) return List.of();
        Map<String, Map<Integer, Double>> series = new LinkedHashMap<>();
        for (IterationResults it : parsed.iterations()) {
            if (it.results() == null) continue;
            it.results()
                    .benchmarks()
                    .forEach((b, measures) -> measures.forEach(
                            (m, metric) -> series.computeIfAbsent(b + "\u0000" + m, k -> new LinkedHashMap<>())
                                    .put(it.iteration(), metric.value())));
        }
        List<Chart> charts = new ArrayList<>();
        series.forEach((key, values) -> {
            String[] names = key.split("\u0000", 2);
            charts.add(chart(names[0], names[1], values));
        });
        return charts;
    }

    static Chart chart(String benchmark, String measure, Map<Integer, Double> values) {
        double min =
                values.values().stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double max =
                values.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        int last = values.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        double pad = 10;
        double w = Chart.WIDTH - 2 * pad;
        double h = Chart.HEIGHT - 2 * pad;
        List<Point> points = new ArrayList<>();
        StringBuilder polyline = new StringBuilder();
        values.forEach((iteration, value) -> {
            double x = pad + (last == 0 ? w / 2 : w * iteration / last);
            double y = pad + (max == min ? h / 2 : h * (max - value) / (max - min));
            points.add(new Point(round(x), round(y), iteration, value));
            if (!polyline.isEmpty()) polyline.append(' ');
            polyline.append(round(x)).append(',').append(round(y));
        });
        return new Chart(benchmark, measure, polyline.toString(), points, min, max);
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    // ---- alerts and metrics (docs/alerts.md) -----------------------------------------------------

    AlertsPage alerts(Project project, Principal viewer) {
        return alerts.page(project, viewer);
    }

    /** The metrics page; with a benchmark and measure, their points (the plot's table) and the plot's data URL. */
    MetricsPage metrics(Project project, String benchmark, String measure, String branch, String testbed) {
        boolean chosen = benchmark != null && measure != null;
        PlotData data = chosen ? history.data(project, benchmark, measure, branch, testbed) : null;
        return new MetricsPage(
                project.slug().value(),
                project.name(),
                history.choices(project, benchmark, measure),
                chosen ? benchmark : null,
                chosen ? measure : null,
                branch,
                testbed,
                chosen ? MetricHistory.dataUrl(project, benchmark, measure, branch, testbed) : null,
                data == null ? List.of() : data.points(),
                data == null ? List.of() : data.changePoints());
    }

    PlotData metricData(Project project, String benchmark, String measure, String branch, String testbed) {
        return history.data(project, benchmark, measure, branch, testbed);
    }

    // ---- registry --------------------------------------------------------------------------------

    RegistryPage registry(Project project, String publicUrl) {
        List<RepositoryRow> repos = new ArrayList<>();
        images.repositories(project.uuid())
                .forEach((path, tags) -> repos.add(new RepositoryRow(path.isEmpty() ? "(root)" : path, tags)));
        String host = publicUrl.replaceFirst("^https?://", "");
        return new RegistryPage(project.slug().value(), project.name(), host + "/" + project.uuid(), repos);
    }
}

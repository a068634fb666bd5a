package dev.baton.console;

import dev.baton.console.Views.AlertsPage;
import dev.baton.console.Views.ComparePage;
import dev.baton.console.Views.JobPage;
import dev.baton.console.Views.JobRef;
import dev.baton.console.Views.JobsPage;
import dev.baton.console.Views.MetricsPage;
import dev.baton.console.Views.PlotData;
import dev.baton.console.Views.ProjectRow;
import dev.baton.console.Views.QueueRow;
import dev.baton.console.Views.RegistryPage;
import dev.baton.console.Views.RepositoryRow;
import dev.baton.console.Views.RunnerRow;
import dev.baton.console.Views.SpecRow;
import dev.baton.core.config.ShippedVersion;
import dev.baton.dispatch.JobQueue;
import dev.baton.dispatch.QueueStatus;
import dev.baton.dispatch.channel.RunnerActivity;
import dev.baton.dispatch.output.OutputStore;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.DrainState;
import dev.baton.registry.Images;
import dev.baton.store.Job;
import dev.baton.store.JobFilter;
import dev.baton.store.KnownMachine;
import dev.baton.store.Project;
import dev.baton.store.Runner;
import dev.baton.store.RunnerFilter;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.web.auth.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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

    private final Store store;
    private final JobQueue queue;
    private final LongFunction<Optional<RunnerActivity>> activity;
    private final Images images;
    private final JobListing listing;
    private final JobDetail detail;
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
        this.detail = new JobDetail(store, queue, outputs, listing);
        this.alerts = new AlertPages(store);
        this.comparison = new Comparison(store, alerts);
        this.history = new MetricHistory(store, alerts);
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
        return detail.page(project, job, viewer);
    }

    /** A collected file of the job's final attempt, whole. */
    Optional<String> file(Project project, Job job, int iteration, String path) {
        return detail.file(project, job, iteration, path);
    }

    ComparePage compare(Project project, Job job) {
        return comparison.compare(project, job);
    }

    /** The /v0/run body that submits the job again with the same configuration. */
    Map<String, Object> rerun(Project project, Job job) {
        return detail.rerun(project, job);
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

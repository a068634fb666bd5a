package dev.baton.console;

import dev.baton.console.Views.Choice;
import dev.baton.console.Views.JobRef;
import dev.baton.console.Views.JobRow;
import dev.baton.console.Views.JobsPage;
import dev.baton.protocol.job.JobStatus;
import dev.baton.store.Job;
import dev.baton.store.JobFilter;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.Runner;
import dev.baton.store.RunnerFilter;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A project's job list: one row per job with what ran and who ran it, filtered by state, spec,
 * runner (in the store's query) and by branch and submitter. The store has no index for the last
 * two, so those filters read the newest jobs page by page, at most {@link #SCAN} of them, and the
 * page says when it stopped there.
 */
public final class JobListing {
    /** Jobs on one page. */
    static final int PAGE = 50;
    /** The most jobs a branch or submitter filter reads. */
    public static final int SCAN = 2_000;
    /** The submitter of a job submitted with the admin token. */
    static final String ADMIN = "admin";

    /** The filters, as the URL gives them; null when not set. */
    record Filter(JobStatus status, Spec spec, Runner runner, String branch, String submitter) {
        boolean scans() {
            return branch != null || submitter != null;
        }
    }

    private final Store store;

    JobListing(Store store) {
        this.store = store;
    }

    JobsPage page(Project project, Filter f, int offset) {
        Names names = new Names(store);
        JobFilter query = new JobFilter(
                f.status(),
                f.spec() == null ? null : f.spec().id(),
                f.runner() == null ? null : f.runner().id(),
                0,
                0);
        List<JobRow> matched = new ArrayList<>();
        boolean limited = false;
        if (!f.scans()) {
            for (Job j : store.runs().listJobs(project.id(), withPage(query, PAGE + 1, offset)))
                matched.add(row(project, j, names));
        } else {
            // Read newest first until a page and one more matched, or the scan limit.
            int read = 0;
            int batch = 200;
            while (matched.size() < offset + PAGE + 1) {
                if (read >= SCAN) {
                    limited = true;
                    break;
                }
                List<Job> jobs = store.runs().listJobs(project.id(), withPage(query, batch, read));
                for (Job j : jobs) {
                    JobRow row = row(project, j, names);
                    if (matches(row, f)) matched.add(row);
                }
                read += jobs.size();
                if (jobs.size() < batch) break;
            }
            matched = matched.subList(Math.min(offset, matched.size()), matched.size());
        }
        boolean more = matched.size() > PAGE;
        List<JobRow> rows = matched.subList(0, Math.min(PAGE, matched.size()));
        return new JobsPage(
                project.slug().value(),
                project.name(),
                List.copyOf(rows),
                statuses(f),
                specs(f),
                runners(f),
                submitters(f),
                f.branch() == null ? "" : f.branch(),
                query(f),
                offset > 0 ? Math.max(0, offset - PAGE) : null,
                more ? offset + PAGE : null,
                offset,
                limited);
    }

    private static JobFilter withPage(JobFilter f, int limit, int offset) {
        return new JobFilter(f.status(), f.specId(), f.runnerId(), limit, offset);
    }

    private static boolean matches(JobRow row, Filter f) {
        return (f.branch() == null || f.branch().equals(row.branch()))
                && (f.submitter() == null || f.submitter().equals(row.submitter()));
    }

    /** A job's row: its report gives the branch and testbed, the job its image or command. */
    JobRow row(Project project, Job j, Names names) {
        Optional<Report> report = store.runs().findReport(j.reportId());
        return new JobRow(
                new JobRef(project.slug().value(), j.uuid().toString()),
                j.status().wireName(),
                names.spec(j.specId()),
                names.runner(j.runnerId()),
                j.priority(),
                j.attempt(),
                j.created(),
                j.started(),
                j.completed(),
                report.map(Report::branch).orElse(null),
                report.flatMap(r -> store.alerts().reportHash(r.id())).orElse(null),
                report.map(Report::testbed).orElse(null),
                what(j),
                names.submitter(j.id()));
    }

    /** The image (repository and short digest) or, for a command run, the command. */
    static String what(Job j) {
        List<String> command = new ArrayList<>();
        if (j.config().entrypoint() != null) command.addAll(j.config().entrypoint());
        if (j.config().cmd() != null) command.addAll(j.config().cmd());
        String cmd = String.join(" ", command);
        if (j.config().digest() == null) return cmd.isEmpty() ? "—" : cmd;
        String digest = j.config().digest().toString();
        String shortDigest = digest.substring(0, Math.min(digest.length(), digest.indexOf(':') + 13));
        return cmd.isEmpty() ? shortDigest : shortDigest + " · " + cmd;
    }

    private static List<Choice> statuses(Filter f) {
        List<Choice> out = new ArrayList<>();
        for (JobStatus s : JobStatus.values()) out.add(new Choice(s.wireName(), s.wireName(), s == f.status()));
        return out;
    }

    private List<Choice> specs(Filter f) {
        return store.specs().listSpecs(false).stream()
                .map(s -> new Choice(
                        s.slug().value(), s.name(), f.spec() != null && f.spec().id() == s.id()))
                .toList();
    }

    private List<Choice> runners(Filter f) {
        return store.runners().listRunners(new RunnerFilter(null, null, true)).stream()
                .map(r -> new Choice(
                        r.slug().value(),
                        r.name(),
                        f.runner() != null && f.runner().id() == r.id()))
                .toList();
    }

    private List<Choice> submitters(Filter f) {
        TreeSet<String> names = new TreeSet<>();
        store.access().listUsers().forEach(u -> names.add(u.name()));
        List<Choice> out = new ArrayList<>();
        out.add(new Choice(ADMIN, ADMIN + " (admin token)", ADMIN.equals(f.submitter())));
        for (String n : names) if (!n.equals(ADMIN)) out.add(new Choice(n, n, n.equals(f.submitter())));
        return out;
    }

    /** The filters as a query string ({@code &name=value…}), for the pages' links and the live refresh. */
    private static String query(Filter f) {
        StringBuilder q = new StringBuilder();
        if (f.status() != null) q.append("&status=").append(f.status().wireName());
        if (f.spec() != null) q.append("&spec=").append(f.spec().slug().value());
        if (f.runner() != null) q.append("&runner=").append(f.runner().slug().value());
        if (f.branch() != null) q.append("&branch=").append(URLEncoder.encode(f.branch(), StandardCharsets.UTF_8));
        if (f.submitter() != null)
            q.append("&submitter=").append(URLEncoder.encode(f.submitter(), StandardCharsets.UTF_8));
        return q.toString();
    }
}

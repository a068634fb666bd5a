package dev.baton.server.console;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** What the console's templates show: plain values, built by {@link ConsolePages} from the store and dispatch. */
public final class Views {
    private Views() {}

    /**
     * The frame of every page: its title, the active section, the CSRF token for its forms, and the
     * browser tab's title when it says more than the heading (a job's state).
     */
    public record Chrome(String title, String section, String csrf, boolean admin, String tab) {
        /** The sign-in page's chrome: nobody is signed in yet. */
        public Chrome(String title, String section, String csrf) {
            this(title, section, csrf, false);
        }

        public Chrome(String title, String section, String csrf, boolean admin) {
            this(title, section, csrf, admin, null);
        }

        /** What the browser tab shows. */
        public String tabTitle() {
            return (tab == null ? title : tab) + " · Baton";
        }

        public Chrome withTab(String tab) {
            return new Chrome(title, section, csrf, admin, tab);
        }
    }

    /** A link to a job's page. */
    public record JobRef(String project, String job) {
        public String href() {
            return "/console/projects/" + project + "/jobs/" + job;
        }

        public String shortId() {
            return job.length() > 8 ? job.substring(0, 8) : job;
        }
    }

    /** A runner: {@code state} is idle, busy, draining, connected, offline, quarantined or archived. */
    public record RunnerRow(String slug, String name, String state, String detail, List<JobRef> jobs, String specs,
            Instant lastHeartbeat, Instant connectedSince, boolean archived, boolean connected, boolean quarantined, String labels) {}

    public record SpecRow(String slug, String name, String shape, long serving, long connected, long queued, long running,
            Duration medianWait, Duration medianRun, int sample) {}

    /** A pending job in dispatch order: {@code order} over all specs, {@code position} among the jobs competing for its runners. */
    public record QueueRow(int order, JobRef job, String spec, int priority, Instant created, Integer position, Instant predictedStart,
            String reason) {}

    public record JobRow(JobRef ref, String status, String spec, String runner, int priority, int attempt, Instant created,
            Instant started, Instant completed) {}

    public record Choice(String value, String label, boolean selected) {}

    public record JobsPage(String project, String projectName, List<JobRow> jobs, List<Choice> statuses, List<Choice> specs,
            List<Choice> runners, String query, Integer previousOffset, Integer nextOffset, int offset) {}

    public record TimelineEntry(Instant at, String what) {}

    /** One claim of a job; the lease is shown as a fingerprint: it identifies the attempt without handing out the capability. */
    public record AttemptRow(int number, String runner, String lease, String outcome, Instant claimed, Instant started, Instant ended,
            String decline) {}

    public record OutputFile(int iteration, String path, long size, String content, boolean truncated) {}

    public record IterationRow(int iteration, Integer exitCode, String error) {}

    public record MetricRow(String benchmark, String measure, double value, Double lower, Double upper) {}

    /** One chart point, in the SVG's own coordinates, with its iteration and value for the tooltip. */
    public record Point(double x, double y, int iteration, double value) {}

    /** A measure's values over iterations, scaled into a {@link #WIDTH}×{@link #HEIGHT} SVG. */
    public record Chart(String benchmark, String measure, String polyline, List<Point> points, double min, double max) {
        public static final int WIDTH = 600;
        public static final int HEIGHT = 200;
    }

    public record JobPage(String project, String projectName, JobRow job, String errorCode, String error, String pendingReason,
            Integer queuePosition, Instant predictedStart, List<TimelineEntry> timeline, List<AttemptRow> attempts,
            List<IterationRow> iterations, List<OutputFile> files, List<MetricRow> metrics, List<Chart> charts, String adapterError,
            boolean cancelable, String image, List<String> command) {
        public String logUrl() {
            return job.ref().href() + "/log?follow=true";
        }
    }

    /** A link with its words, e.g. the way back from a message or a confirmation. */
    public record Link(String href, String label) {}

    /**
     * A destructive action waiting for a yes: the question, what follows, the form that does it
     * ({@code action} with its {@code fields}, plus {@code confirm=yes}) and the way back without it.
     */
    public record Confirmation(String question, String consequence, String action, java.util.Map<String, String> fields, String button,
            Link back) {}

    public record ProjectRow(String slug, String name, String uuid) {}

    public record RepositoryRow(String name, List<String> tags) {}

    public record RegistryPage(String project, String projectName, String pullPrefix, List<RepositoryRow> repositories) {}
}

package dev.baton.console;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** What the console's templates show: plain values, built by {@link ConsolePages} from the store and dispatch. */
public final class Views {
    private Views() {}

    /**
     * The frame of every page: its title, the active section, the CSRF token for its forms, the
     * browser tab's title when it says more than the heading (a job's state), and the server's time.
     */
    public record Chrome(String title, String section, String csrf, boolean admin, String tab, Instant now) {
        /** The sign-in page's chrome: nobody is signed in yet. */
        public Chrome(String title, String section, String csrf) {
            this(title, section, csrf, false);
        }

        public Chrome(String title, String section, String csrf, boolean admin) {
            this(title, section, csrf, admin, null, null);
        }

        /** The server's time of the rendering, for the page's live times (the browser's clock may differ). */
        public String nowIso() {
            return now == null ? null : now.toString();
        }

        /** What the browser tab shows. */
        public String tabTitle() {
            return (tab == null ? title : tab) + " · Baton";
        }

        public Chrome withTab(String tab) {
            return new Chrome(title, section, csrf, admin, tab, now);
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
    public record RunnerRow(
            String slug,
            String name,
            String state,
            String detail,
            List<JobRef> jobs,
            String specs,
            Instant lastHeartbeat,
            Instant connectedSince,
            boolean archived,
            boolean connected,
            boolean quarantined,
            String labels,
            MachineText machine) {}

    public record SpecRow(
            String slug,
            String name,
            String shape,
            long serving,
            long connected,
            long queued,
            long running,
            Duration medianWait,
            Duration medianRun,
            int sample) {}

    /** A pending job in dispatch order: {@code order} over all specs, {@code position} among the jobs competing for its runners. */
    public record QueueRow(
            int order,
            JobRef job,
            String spec,
            int priority,
            Instant created,
            Integer position,
            Instant predictedStart,
            String reason) {}

    /**
     * A job as the list and its page show it: what ran (branch, commit hash when the run carries
     * one, testbed, spec, image or command), who submitted it ({@code admin} for the admin
     * token), its state and times. {@code queueWait} and {@code runTime} are null until they start.
     */
    public record JobRow(
            JobRef ref,
            String status,
            String spec,
            String runner,
            int priority,
            int attempt,
            Instant created,
            Instant started,
            Instant completed,
            String branch,
            String hash,
            String testbed,
            String what,
            String submitter) {
        public boolean running() {
            return started != null && completed == null && ("running".equals(status) || "claimed".equals(status));
        }

        public boolean pending() {
            return "pending".equals(status);
        }

        /** Submitted → started; null while pending (the page counts it live). */
        public Duration queueWait() {
            return started == null ? null : Duration.between(created, started);
        }

        /** Started → ended; null while running (the page counts it live). */
        public Duration runTime() {
            return started == null || completed == null ? null : Duration.between(started, completed);
        }

        public String shortHash() {
            return hash == null ? null : hash.length() > 7 ? hash.substring(0, 7) : hash;
        }
    }

    public record Choice(String value, String label, boolean selected) {}

    /**
     * One page of a project's jobs with its filters (all in the URL). {@code branch} is the text
     * filter's value; {@code scanLimited} says the branch or submitter filter stopped after the
     * newest jobs it may read ({@link JobListing#SCAN}).
     */
    public record JobsPage(
            String project,
            String projectName,
            List<JobRow> jobs,
            List<Choice> statuses,
            List<Choice> specs,
            List<Choice> runners,
            List<Choice> submitters,
            String branch,
            String query,
            Integer previousOffset,
            Integer nextOffset,
            int offset,
            boolean scanLimited) {}

    public record TimelineEntry(Instant at, String what) {}

    /**
     * One claim of a job; the lease is shown as a fingerprint: it identifies the attempt without handing out the capability.
     * {@code retry} (issue 41), for a started attempt that failed: its kind and whether it was retried, or why not.
     */
    public record AttemptRow(
            int number,
            String runner,
            String lease,
            String outcome,
            Instant claimed,
            Instant started,
            Instant ended,
            String decline,
            String transport,
            String retry) {}

    /** A collected file: shown inline up to 16 KiB, and downloadable whole at {@link #href}. */
    public record OutputFile(int iteration, String path, long size, String content, boolean truncated, String href) {}

    /** One measure in a run and the previous run on its branch; {@code changePercent} null when either is missing or the previous is 0. */
    public record CompareRow(String benchmark, String measure, Double previous, Double current, Double changePercent) {
        public String change() {
            if (changePercent == null) return "—";
            if (Math.abs(changePercent) < 0.05) return "0.0 %";
            return (changePercent > 0 ? "+" : "−")
                    + String.format(java.util.Locale.ROOT, "%,.1f", Math.abs(changePercent)) + " %";
        }

        public String direction() {
            return changePercent == null || Math.abs(changePercent) < 0.05 ? "same" : changePercent > 0 ? "up" : "down";
        }

        /**
         * The change judged by the measure's direction (issue 44): {@code better} or {@code
         * worse} (a +25 % latency is worse, a −10 % throughput is worse too), {@code same}, or
         * {@code changed} for a measure whose direction Baton does not know.
         */
        public String verdict() {
            String d = direction();
            if (d.equals("same")) return "same";
            Boolean higher = dev.baton.core.adapter.Measures.higherIsBetter(measure);
            if (higher == null) return "changed";
            return d.equals("up") == higher ? "better" : "worse";
        }
    }

    /** A job beside the previous run on the same branch and testbed ({@code previous} null when there is none), with the alerts raised on it. */
    public record ComparePage(
            String project,
            String projectName,
            JobRef job,
            JobRef previous,
            String branch,
            String testbed,
            List<CompareRow> rows,
            List<AlertRow> alerts) {}

    /**
     * An alert (docs/alerts.md) as the console shows it: which threshold, side, value, limit and
     * baseline; {@code job} is the run's job, null for a direct run (then {@code report} names it).
     */
    public record AlertRow(
            String uuid,
            String branch,
            String testbed,
            String hash,
            String benchmark,
            String measure,
            String threshold,
            String model,
            String side,
            double value,
            double limit,
            int baselineSize,
            Double baselineMean,
            Double baselineStddev,
            String status,
            Instant created,
            JobRef job,
            String report) {
        public String shortId() {
            return uuid.substring(0, Math.min(8, uuid.length()));
        }

        public String shortThreshold() {
            return threshold == null ? "—" : threshold.substring(0, Math.min(8, threshold.length()));
        }

        public String shortHash() {
            return hash == null ? null : hash.length() > 7 ? hash.substring(0, 7) : hash;
        }

        /** "5 earlier results, mean 12 ± 1.58", as the CLI says it. */
        public String baseline() {
            String size = baselineSize == 1 ? "1 earlier result" : baselineSize + " earlier results";
            if (baselineMean == null) return size;
            return size + ", mean " + Format.number(baselineMean)
                    + (baselineStddev == null ? "" : " ± " + Format.number(baselineStddev));
        }

        /** "above the upper limit" or "below the lower limit". */
        public String sideText() {
            return "upper".equals(side) ? "above the upper limit" : "below the lower limit";
        }
    }

    /** A project's alerts, active and dismissed; {@code mayTriage}: the viewer may dismiss and reopen (the API's rule). */
    public record AlertsPage(
            String project,
            String projectName,
            List<AlertRow> active,
            List<AlertRow> dismissed,
            boolean mayTriage,
            List<GroupRow> groups) {}

    /**
     * An alert group (docs/alerts.md, "Triage and groups"): the alerts of one report's judgement,
     * its commit range, its triage ({@code mixed} when its alerts differ) and what moved.
     */
    public record GroupRow(
            String uuid,
            String branch,
            String testbed,
            String hash,
            String previousHash,
            String state,
            String note,
            String commit,
            String by,
            int alerts,
            String metrics,
            Instant created) {
        public String shortId() {
            return uuid.substring(0, Math.min(8, uuid.length()));
        }

        /** The commit range as git writes it, or what is known of it. */
        public String range() {
            if (hash == null) return "—";
            String to = hash.substring(0, Math.min(10, hash.length()));
            return previousHash == null
                    ? to
                    : previousHash.substring(0, Math.min(10, previousHash.length())) + ".." + to;
        }

        /** The states a person may set, in the docs' order. */
        public List<String> states() {
            return dev.baton.store.Triage.STATES;
        }
    }

    /** A benchmark and measure with a link to its plot. */
    public record MetricChoice(String benchmark, String measure, String href, boolean selected) {}

    /**
     * The metrics page: every benchmark and measure, and for the chosen one ({@code benchmark}
     * null: none chosen) the plot's data URL and the same points as a table, the plot's text alternative.
     */
    public record MetricsPage(
            String project,
            String projectName,
            List<MetricChoice> choices,
            String benchmark,
            String measure,
            String branch,
            String testbed,
            String dataUrl,
            List<PlotPoint> points) {}

    /**
     * One point of the plot: its series ("branch · testbed"), time, value, the boundary (when
     * several thresholds judged it, the narrowest limits), the alert's side when it raised one,
     * and the job that measured it (null for a direct run).
     */
    public record PlotPoint(
            String series,
            String branch,
            String testbed,
            Instant at,
            double value,
            Double lower,
            Double upper,
            String alert,
            String hash,
            String report,
            String job) {
        public String shortJob() {
            return job == null
                    ? null
                    : job.substring(job.lastIndexOf('/') + 1, Math.min(job.length(), job.lastIndexOf('/') + 9));
        }
    }

    /** What the plot's script fetches. */
    public record PlotData(String benchmark, String measure, List<PlotPoint> points) {}

    public record IterationRow(int iteration, Integer exitCode, String error) {}

    public record MetricRow(String benchmark, String measure, double value, Double lower, Double upper) {}

    /** One chart point, in the SVG's own coordinates, with its iteration and value for the tooltip. */
    public record Point(double x, double y, int iteration, double value) {}

    /** A measure's values over iterations, scaled into a {@link #WIDTH}×{@link #HEIGHT} SVG. */
    public record Chart(String benchmark, String measure, String polyline, List<Point> points, double min, double max) {
        public static final int WIDTH = 600;
        public static final int HEIGHT = 200;
    }

    public record JobPage(
            String project,
            String projectName,
            JobRow job,
            String errorCode,
            String error,
            String pendingReason,
            Integer queuePosition,
            Instant predictedStart,
            List<TimelineEntry> timeline,
            List<AttemptRow> attempts,
            List<IterationRow> iterations,
            List<OutputFile> files,
            List<MetricRow> metrics,
            List<Chart> charts,
            String adapterError,
            boolean cancelable,
            String image,
            List<String> command,
            boolean mayRerun,
            dev.baton.alerts.PairedVerdict paired,
            List<String> baselineCommand) {
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
    public record Confirmation(
            String question,
            String consequence,
            String action,
            java.util.Map<String, String> fields,
            String button,
            Link back) {}

    public record ProjectRow(String slug, String name, String uuid) {}

    public record RepositoryRow(String name, List<String> tags) {}

    public record RegistryPage(
            String project, String projectName, String pullPrefix, List<RepositoryRow> repositories) {}
}

package dev.baton.protocol.message;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.NoiseFigure;
import dev.baton.protocol.model.RunnerCapabilities;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.protocol.value.ImageDigest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Messages a runner sends on its channel; {@code event} names the type. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "event")
@JsonSubTypes({
    @JsonSubTypes.Type(value = RunnerMessage.Ready.class, name = "ready"),
    @JsonSubTypes.Type(value = RunnerMessage.Preparing.class, name = "preparing"),
    @JsonSubTypes.Type(value = RunnerMessage.Declined.class, name = "declined"),
    @JsonSubTypes.Type(value = RunnerMessage.Running.class, name = "running"),
    @JsonSubTypes.Type(value = RunnerMessage.Heartbeat.class, name = "heartbeat"),
    @JsonSubTypes.Type(value = RunnerMessage.Completed.class, name = "completed"),
    @JsonSubTypes.Type(value = RunnerMessage.Failed.class, name = "failed"),
    @JsonSubTypes.Type(value = RunnerMessage.Canceled.class, name = "canceled"),
    @JsonSubTypes.Type(value = RunnerMessage.Log.class, name = "log"),
    @JsonSubTypes.Type(value = RunnerMessage.PullToken.class, name = "pull_token"),
    @JsonSubTypes.Type(value = RunnerMessage.Calibration.class, name = "calibration"),
})
public sealed interface RunnerMessage {

    /** A message about one attempt of one job; it is applied only while its lease is current. */
    sealed interface JobScoped extends RunnerMessage {
        JobUuid job();

        LeaseId lease();
    }

    /** A final word about an attempt; resent after a reconnect until acknowledged. */
    sealed interface Terminal extends JobScoped {}

    /**
     * The runner is idle (or has free slots) and asks for work. {@code pollTimeout} is seconds
     * (1–900, default 30); {@code slots} is how many more jobs it can take now (default 1);
     * {@code capabilities} is what its executor detected at start (absent from older runners).
     *
     * <p>Two optional fields exist for a router (docs/router.md), which stands for many runners:
     * {@code specs} narrows this wait to some of the runner's specs (slugs; those with a free
     * runner behind the router), and {@code preferProjects} orders the claim by project first
     * (UUIDs, most preferred first; other projects after them), which is how a router applies
     * fair share. Absent, a ready means what it always meant.
     */
    record Ready(
            Integer pollTimeout,
            String os,
            String arch,
            String version,
            Integer slots,
            List<String> specs,
            List<ProjectUuid> preferProjects,
            RunnerCapabilities capabilities,
            Map<String, String> labels,
            List<ImageDigest> images,
            String host,
            Long pid,
            Instant agentStarted)
            implements RunnerMessage {
        public static final int MAX_LIST = 1024;

        /**
         * {@code labels} (optional, issue 19): the {@code key=value} labels the runner reports of
         * itself (docs/scheduling.md, "Label routing"); absent from older runners, which keep
         * whatever they reported last. Checked by {@link dev.baton.protocol.value.Labels}.
         *
         * <p>{@code images} (optional, issue 19): the image digests the runner holds ready to run,
         * most recently used first, at most {@link HeldImages#MAX}; see {@link HeldImages}.
         *
         * <p>{@code host}, {@code pid} and {@code agentStarted} (optional, issue 41): the agent's host
         * name, process id and start time, recorded with {@code os}, {@code arch} and {@code version}
         * as the machine of the connection and of the attempts it claims.
         */
        public Ready {
            labels = labels == null ? null : dev.baton.protocol.value.Labels.of(labels);
            images = HeldImages.check("ready", images);
            if (specs != null && specs.size() > MAX_LIST)
                throw new IllegalArgumentException("ready: at most " + MAX_LIST + " specs");
            if (preferProjects != null && preferProjects.size() > MAX_LIST) {
                throw new IllegalArgumentException("ready: at most " + MAX_LIST + " prefer_projects");
            }
            specs = specs == null ? null : List.copyOf(specs);
            preferProjects = preferProjects == null ? null : List.copyOf(preferProjects);
        }

        /** A ready without the agent's host, pid and start time (as runners before issue 41 sent it). */
        public Ready(
                Integer pollTimeout,
                String os,
                String arch,
                String version,
                Integer slots,
                List<String> specs,
                List<ProjectUuid> preferProjects,
                RunnerCapabilities capabilities,
                Map<String, String> labels,
                List<ImageDigest> images) {
            this(
                    pollTimeout,
                    os,
                    arch,
                    version,
                    slots,
                    specs,
                    preferProjects,
                    capabilities,
                    labels,
                    images,
                    null,
                    null,
                    null);
        }

        /** What this ready says of the machine, seen from {@code address}. */
        public RunnerHost machine(String address) {
            return new RunnerHost(os, arch, version, host, pid, agentStarted, address).bounded();
        }

        /** A ready without labels (as runners before them sent it). */
        public Ready(
                Integer pollTimeout,
                String os,
                String arch,
                String version,
                Integer slots,
                List<String> specs,
                List<ProjectUuid> preferProjects,
                RunnerCapabilities capabilities) {
            this(pollTimeout, os, arch, version, slots, specs, preferProjects, capabilities, null, null);
        }

        /** A ready without held images (as runners before image affinity sent it). */
        public Ready(
                Integer pollTimeout,
                String os,
                String arch,
                String version,
                Integer slots,
                List<String> specs,
                List<ProjectUuid> preferProjects,
                RunnerCapabilities capabilities,
                Map<String, String> labels) {
            this(pollTimeout, os, arch, version, slots, specs, preferProjects, capabilities, labels, null);
        }

        /** A ready as a runner sends it: for all its specs, in the server's own order, with what its executor detected. */
        public Ready(
                Integer pollTimeout,
                String os,
                String arch,
                String version,
                Integer slots,
                RunnerCapabilities capabilities) {
            this(pollTimeout, os, arch, version, slots, null, null, capabilities);
        }

        /** A router's ready: narrowed to some specs and ordered by project preference. */
        public Ready(
                Integer pollTimeout,
                String os,
                String arch,
                String version,
                Integer slots,
                List<String> specs,
                List<ProjectUuid> preferProjects) {
            this(pollTimeout, os, arch, version, slots, specs, preferProjects, null);
        }

        /** A ready without capabilities (as runners before them sent it). */
        public Ready(Integer pollTimeout, String os, String arch, String version, Integer slots) {
            this(pollTimeout, os, arch, version, slots, null, null, null);
        }
    }

    /**
     * A Baton extension (issue 41): the runner asks for a fresh registry pull token for this
     * attempt, because a pull outlives the one its {@code job} message carried. Answered with the
     * server's {@code pull_token} while the lease is current and the job has not ended, else
     * {@code stale}. Optional: a runner that never asks pulls with the claim's token alone. It is
     * not activity (it does not reset the read timer): a runner that pulls still says
     * {@code preparing}.
     */
    record PullToken(JobUuid job, LeaseId lease) implements RunnerMessage {}

    /**
     * A Baton extension (decision 0052): the machine's noise, as the agent measured it while idle
     * (the calibration workload, run at start before it takes any job): one figure per workload,
     * each once, with the machine's fingerprint when measured. The server stores it on the runner;
     * it answers nothing (no ack: a lost one is measured again at the next start). Not activity.
     */
    record Calibration(Instant measured, List<NoiseFigure> figures, MachineFingerprint fingerprint)
            implements RunnerMessage {
        public Calibration {
            if (measured == null) throw new IllegalArgumentException("calibration: measured is required");
            if (figures == null || figures.isEmpty())
                throw new IllegalArgumentException("calibration: figures are required");
            if (figures.size() > NoiseFigure.WORKLOADS.size()
                    || figures.stream().map(NoiseFigure::workload).distinct().count() != figures.size())
                throw new IllegalArgumentException("calibration: each workload at most once");
            figures = List.copyOf(figures);
        }

        /** The largest CV of its figures: the runner's noise in one number. */
        public double maxCv() {
            return figures.stream().mapToDouble(NoiseFigure::cv).max().orElseThrow();
        }
    }

    /** Keep-alive while a claimed job is being provisioned (pull, unpack, boot). */
    record Preparing(JobUuid job, LeaseId lease, String message) implements JobScoped {}

    /**
     * The runner cannot run this job; it goes back to the queue for another runner. {@code code}
     * is one of {@link DeclineCode}'s wire names (absent from older runners: read as
     * {@code other}); {@code reason} is one human sentence. {@code fingerprint} (optional) is the
     * machine state that made the runner decline ({@code noisy_machine}); it is stored on the attempt.
     */
    record Declined(JobUuid job, LeaseId lease, String code, String reason, MachineFingerprint fingerprint)
            implements JobScoped {
        /** A decline without a code (as runners before decline codes sent it). */
        public Declined(JobUuid job, LeaseId lease, String reason) {
            this(job, lease, (String) null, reason, null);
        }

        public Declined(JobUuid job, LeaseId lease, String code, String reason) {
            this(job, lease, code, reason, null);
        }

        public Declined(JobUuid job, LeaseId lease, DeclineCode code, String reason) {
            this(job, lease, code.wireName(), reason, null);
        }

        /** The code as sent, or {@code other} when absent or unknown to this version. */
        public DeclineCode declineCode() {
            return DeclineCode.parse(code);
        }
    }

    /**
     * Execution really started: starts the clock. {@code fingerprint} (optional; absent from
     * runners before it) is the machine's state read just before the workload started.
     *
     * <p>{@code machine} (optional, issue 41): a router's word for the machine behind it that runs the
     * job (what that runner said in {@code ready}, and its address as the router saw it); the
     * server records it on the attempt instead of the router's own. Runners leave it out.
     */
    record Running(JobUuid job, LeaseId lease, MachineFingerprint fingerprint, RunnerHost machine)
            implements JobScoped {
        public Running(JobUuid job, LeaseId lease) {
            this(job, lease, null, null);
        }

        public Running(JobUuid job, LeaseId lease, MachineFingerprint fingerprint) {
            this(job, lease, fingerprint, null);
        }

        /** The same word, with the machine behind the router that says it. */
        public Running withMachine(RunnerHost m) {
            return new Running(job, lease, fingerprint, m);
        }
    }

    /**
     * Liveness. With {@code job} and {@code lease} it keeps that attempt alive; without, it only
     * says the connection is alive (an idle runner).
     *
     * <p>{@code images} (optional, issue 19) is the runner's list of held images, sent only when it
     * changed since the last {@code ready} or heartbeat on this connection (same rules as in
     * {@link Ready}); absent means "unchanged".
     */
    record Heartbeat(JobUuid job, LeaseId lease, List<ImageDigest> images) implements RunnerMessage {
        public Heartbeat {
            images = HeldImages.check("heartbeat", images);
        }

        public Heartbeat(JobUuid job, LeaseId lease) {
            this(job, lease, null);
        }
    }

    record Completed(JobUuid job, LeaseId lease, List<IterationResult> results) implements Terminal {}

    /**
     * The attempt failed. {@code lost} (optional, a router's word) says the runner that executed
     * it was lost rather than the workload failing: the server then treats it as it treats a
     * runner it lost itself (outcome {@code lost}, retried only when its retry policy lists
     * {@code runner_lost}). {@code failure} (optional, issue 41) is a {@link FailureCode} wire name:
     * why it failed, so the server can tell the machine's fault from the job's; absent from older
     * runners, which the server then counts as the job's own failure.
     */
    record Failed(JobUuid job, LeaseId lease, List<IterationResult> results, String error, Boolean lost, String failure)
            implements Terminal {
        public Failed(JobUuid job, LeaseId lease, List<IterationResult> results, String error) {
            this(job, lease, results, error, null, null);
        }

        public Failed(JobUuid job, LeaseId lease, List<IterationResult> results, String error, Boolean lost) {
            this(job, lease, results, error, lost, null);
        }

        /** A failure the runner reports with its code. */
        public static Failed because(
                JobUuid job, LeaseId lease, List<IterationResult> results, String error, FailureCode failure) {
            return new Failed(job, lease, results, error, null, failure == null ? null : failure.wireName());
        }

        /** The reported failure code: null when the runner sent none. */
        public FailureCode failureCode() {
            return FailureCode.parse(failure);
        }

        public boolean runnerLost() {
            return Boolean.TRUE.equals(lost);
        }
    }

    /** Acknowledges a {@code cancel}: the workload is stopped; partial results may be attached. */
    record Canceled(JobUuid job, LeaseId lease, List<IterationResult> results) implements Terminal {}

    /**
     * A chunk of a running attempt's stdout or stderr, streamed live (best effort: never kept in
     * the outbox or resent; the full output still comes with the terminal message). {@code seq}
     * counts this attempt's log messages from 1 and only grows; {@code iteration} counts from 0.
     * With {@code dropped} it is a marker instead: that many bytes of this stream were not sent
     * (over the runner's rate or queue budget), and {@code text} is empty.
     */
    @JsonDeserialize(using = LogDeserializer.class)
    record Log(JobUuid job, LeaseId lease, long seq, LogStream stream, int iteration, String text, Long dropped)
            implements JobScoped {
        public static final long MIN_SEQ = 1;
        /** Leaves room for counting several log messages a second for years. */
        public static final long MAX_SEQ = Long.MAX_VALUE / 2;

        public static final int MIN_ITERATION = 0;
        /** Iterations count from 0; a run has at most 100 (POST /v0/run), with head room. */
        public static final int MAX_ITERATION = 9_999;
        /** One message carries at most this much text (UTF-8 bytes); runners cut their chunks to it. */
        public static final int MAX_TEXT_BYTES = 16 * 1024;

        public static final long MIN_DROPPED = 1;
        public static final long MAX_DROPPED = Long.MAX_VALUE / 2;

        public Log {
            if (job == null) throw new IllegalArgumentException("log: job is required");
            if (lease == null) throw new IllegalArgumentException("log: lease is required");
            if (stream == null) throw new IllegalArgumentException("log: stream is required");
            if (text == null) throw new IllegalArgumentException("log: text is required (empty for a dropped marker)");
            range("seq", seq, MIN_SEQ, MAX_SEQ);
            range("iteration", iteration, MIN_ITERATION, MAX_ITERATION);
            if (dropped != null) {
                range("dropped", dropped, MIN_DROPPED, MAX_DROPPED);
                if (!text.isEmpty()) throw new IllegalArgumentException("log: a dropped marker carries no text");
            } else if (text.isEmpty()) {
                throw new IllegalArgumentException("log: text must not be empty");
            }
            // chars <= UTF-8 bytes <= 3 * chars: only long texts need the exact count.
            if (text.length() > MAX_TEXT_BYTES / 3 && text.getBytes(StandardCharsets.UTF_8).length > MAX_TEXT_BYTES) {
                throw new IllegalArgumentException("log: text must be at most " + MAX_TEXT_BYTES + " bytes of UTF-8");
            }
        }

        /** A chunk of output. */
        public static Log text(JobUuid job, LeaseId lease, long seq, LogStream stream, int iteration, String text) {
            return new Log(job, lease, seq, stream, iteration, text, null);
        }

        /** A marker for {@code bytes} of {@code stream} that were not sent. */
        public static Log dropped(JobUuid job, LeaseId lease, long seq, LogStream stream, int iteration, long bytes) {
            return new Log(job, lease, seq, stream, iteration, "", bytes);
        }

        public boolean marksDrop() {
            return dropped != null;
        }

        private static void range(String name, long value, long min, long max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(
                        "log: " + name + " must be between " + min + " and " + max + ", got " + value);
            }
        }
    }
}

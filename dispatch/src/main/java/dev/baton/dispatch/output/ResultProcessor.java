package dev.baton.dispatch.output;

import dev.baton.core.adapter.Adapter;
import dev.baton.core.adapter.Adapters;
import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.ReportResults;
import dev.baton.core.events.Changes;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.store.Job;
import dev.baton.store.ReportFormat;
import dev.baton.store.Store;
import dev.baton.store.Transition;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores what runners report and runs the report's adapter on completed jobs. The output is
 * written under the attempt that reported it, by the state change that refers to it (small
 * output, on the attempt's row) or before it (in the blob storage), so a job marked completed
 * always has its output; a crash after the change leaves a completed-unprocessed job that startup
 * recovery processes again.
 *
 * <p>Each iteration's input is its stdout, or the collected file the report names in
 * {@code results_file}. Every iteration is parsed and kept. When all parse, the report gets the
 * results and the job becomes processed. When one does not (or the output is missing, or the
 * adapter unknown), the report gets what did parse and the error, and the job stays completed
 * (seed 001); startup recovery does not try it again.
 */
public final class ResultProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(ResultProcessor.class);

    private final Store store;
    private final OutputStore outputs;
    private final Adapters adapters;
    private final BatonMetrics metrics;
    private final Clock clock;
    private final Changes changes;
    private final List<java.util.function.LongConsumer> processedListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    public ResultProcessor(
            Store store, OutputStore outputs, Adapters adapters, BatonMetrics metrics, Clock clock, Changes changes) {
        this.changes = changes;
        this.store = store;
        this.outputs = outputs;
        this.adapters = adapters;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** Hears the report id of each job this processor marks processed (alerts judge the report); must only hand it on. */
    public void onProcessed(java.util.function.LongConsumer listener) {
        processedListeners.add(listener);
    }

    /**
     * The encoded output for the transition that ends its attempt to keep on the attempt's row,
     * or null when it is to be {@link #save saved} before that transition ({@link OutputStore#onTheAttempt}).
     */
    public byte[] onTheAttempt(JobOutput output) {
        return outputs.onTheAttempt(output);
    }

    /** Stores what {@code attempt}'s final word carried, under that attempt (never over another attempt's). */
    public void save(ProjectUuid project, JobUuid job, int attempt, JobOutput output) {
        outputs.put(project, job, attempt, output);
    }

    /**
     * Takes back the output a final word stored just before its transition, when the store refused
     * that transition (the job was canceled or its lease had moved on meanwhile): an attempt shows
     * the output of a final word only if it was applied. Only that attempt's output goes.
     */
    public void discard(ProjectUuid project, JobUuid job, int attempt) {
        outputs.remove(project, job, attempt);
    }

    /** True when the job's current attempt has stored output. */
    public boolean hasOutput(ProjectUuid project, Job job) {
        return outputs.get(project, job.uuid(), job.attempt()).isPresent();
    }

    /**
     * Parses a completed job's output into its report and marks it processed, off the caller's
     * thread. {@code saved} is the output the caller has just stored for it: it is parsed as it is,
     * not read back from the output store (issue 13: a file read and a JSON decode per job).
     */
    public void processLater(Job job, JobOutput saved) {
        Objects.requireNonNull(saved, "saved");
        Thread.ofVirtual().name("baton-process-" + job.uuid()).start(() -> process(job, saved));
    }

    /** As {@link #processLater(Job, JobOutput)}, for a job whose output is in the output store (startup recovery). */
    public void process(Job job) {
        process(job, null);
    }

    /**
     * Never throws: a failure of the store leaves the job completed for startup recovery; a parse
     * failure is recorded. A null {@code saved} means the output is read from the output store.
     */
    private void process(Job job, JobOutput saved) {
        try {
            ProjectUuid project =
                    store.organizations().projectUuid(job.projectId()).orElseThrow();
            // The adapter and results file never change: served from memory for reports created on this node.
            ReportFormat report = store.runs().reportFormat(job.reportId()).orElseThrow();
            Outcome outcome = parse(
                    report,
                    saved != null ? Optional.of(saved) : outputs.get(project, job.uuid(), job.attempt()),
                    job.config() == null ? null : job.config().paired());
            Transition t = outcome.error() == null
                    ? store.transitions().process(job.uuid(), outcome.results(), clock.instant())
                    : store.transitions()
                            .recordAdapterError(job.uuid(), outcome.results(), outcome.error(), clock.instant());
            // An adapter error changes no state, so it is no transition.
            if (t.applied() && outcome.error() == null) {
                metrics.transition("process");
                processedListeners.forEach(l -> l.accept(job.reportId()));
            }
            if (t.applied()) changes.job(job.uuid());
        } catch (RuntimeException e) {
            // Left completed without a report error: startup recovery processes it again.
            LOG.error("processing job {} failed", job.uuid(), e);
        }
    }

    /** The report's results column (JSON, null when nothing parsed) and error (null when all parsed). */
    record Outcome(String results, String error) {}

    private Outcome parse(ReportFormat report, Optional<JobOutput> output, PairedConfig paired) {
        Optional<Adapter> adapter = adapters.find(report.adapter());
        if (adapter.isEmpty()) return new Outcome(null, "unknown adapter '" + report.adapter() + "'");
        if (output.isEmpty()) return new Outcome(null, "the job's output is missing from storage");
        List<IterationResult> iterations =
                output.get().results() == null ? List.of() : output.get().results();
        List<IterationResults> parsed = new ArrayList<>();
        for (int i = 0; i < iterations.size(); i++) {
            IterationResult r = iterations.get(i);
            String file = report.resultsFile();
            if (file == null) {
                parsed.add(IterationResults.parse(i, adapter.get(), r.stdout() == null ? "" : r.stdout()));
            } else if (r.output() == null || !r.output().containsKey(file)) {
                parsed.add(IterationResults.failed(i, "results_file '" + file + "' was not collected"));
            } else {
                parsed.add(IterationResults.parse(i, adapter.get(), r.output().get(file)));
            }
        }
        ReportResults results = paired == null
                ? ReportResults.of(parsed)
                : ReportResults.of(parsed, i -> paired.side(i) == PairedConfig.Side.CANDIDATE);
        String error = results.error()
                .map(e -> "adapter " + adapter.get().name() + ": " + e)
                .orElse(null);
        return new Outcome(results.toJson(), error);
    }
}

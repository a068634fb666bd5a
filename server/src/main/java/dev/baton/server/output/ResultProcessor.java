package dev.baton.server.output;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.model.JobOutput;
import dev.baton.server.adapter.Adapter;
import dev.baton.server.adapter.AdapterException;
import dev.baton.server.adapter.Adapters;
import dev.baton.server.metrics.BatonMetrics;
import dev.baton.server.store.Job;
import dev.baton.server.store.Report;
import dev.baton.server.store.Store;
import dev.baton.server.store.Transition;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores what runners report and runs the report's adapter on completed jobs (completed →
 * processed). The output is written before the state change that refers to it, so a job marked
 * completed always has its output; a crash in between leaves a completed-unprocessed job that
 * startup recovery processes again.
 */
public final class ResultProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(ResultProcessor.class);

    private final Store store;
    private final OutputStore outputs;
    private final Adapters adapters;
    private final BatonMetrics metrics;
    private final Clock clock;

    public ResultProcessor(Store store, OutputStore outputs, Adapters adapters, BatonMetrics metrics, Clock clock) {
        this.store = store;
        this.outputs = outputs;
        this.adapters = adapters;
        this.metrics = metrics;
        this.clock = clock;
    }

    public void save(ProjectUuid project, Job job, JobOutput output) {
        outputs.put(project, job.uuid(), output);
    }

    public boolean hasOutput(ProjectUuid project, Job job) {
        return outputs.get(project, job.uuid()).isPresent();
    }

    /** Parses a completed job's output into its report and marks it processed, off the caller's thread. */
    public void processLater(Job job) {
        Thread.ofVirtual().name("baton-process-" + job.uuid()).start(() -> process(job));
    }

    public void process(Job job) {
        try {
            ProjectUuid project = store.findProject(job.projectId()).orElseThrow().uuid();
            Report report = store.findReport(job.reportId()).orElseThrow();
            Optional<JobOutput> output = outputs.get(project, job.uuid());
            String results = null;
            String error = null;
            Optional<Adapter> adapter = adapters.find(report.adapter());
            if (output.isEmpty()) {
                error = "the job's output is missing from storage";
            } else if (adapter.isEmpty()) {
                error = "unknown adapter '" + report.adapter() + "'";
            } else {
                try {
                    results = adapter.get().parse(output.get());
                } catch (AdapterException e) {
                    error = "adapter " + adapter.get().name() + ": " + e.getMessage();
                }
            }
            Transition t = store.process(job.uuid(), results, error, clock.instant());
            if (t.applied()) metrics.transition("process");
        } catch (RuntimeException e) {
            // Left completed: startup recovery processes it again.
            LOG.error("processing job {} failed", job.uuid(), e);
        }
    }
}

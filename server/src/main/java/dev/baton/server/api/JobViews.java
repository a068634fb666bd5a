package dev.baton.server.api;

import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.id.RunnerUuid;
import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.model.JobOutput;
import dev.baton.server.store.Job;
import dev.baton.server.store.Project;
import dev.baton.server.store.Report;
import dev.baton.server.store.Runner;
import dev.baton.server.store.Spec;
import dev.baton.server.store.Store;
import java.util.HashMap;
import java.util.Map;

/** Builds {@link JobView}s for one request, looking each spec, runner and report up once. */
final class JobViews {
    private final Store store;
    private final Project project;
    private final Map<Long, SpecUuid> specs = new HashMap<>();
    private final Map<Long, RunnerUuid> runners = new HashMap<>();

    JobViews(Store store, Project project) {
        this.store = store;
        this.project = project;
    }

    JobView of(Job j, JobOutput output) {
        SpecUuid spec = specs.computeIfAbsent(j.specId(), id -> store.findSpec(id).map(Spec::uuid).orElse(null));
        RunnerUuid runner = j.runnerId() == null ? null
                : runners.computeIfAbsent(j.runnerId(), id -> store.findRunner(id).map(Runner::uuid).orElse(null));
        ReportUuid report = store.findReport(j.reportId()).map(Report::uuid).orElse(null);
        return new JobView(j.uuid(), project.uuid(), report, spec, runner, j.status(), j.priority(), j.timeout(), j.config(),
                j.attempt(), j.requeues(), j.claimed(), j.started(), j.completed(), j.lastHeartbeat(), j.error(),
                j.created(), j.modified(), output);
    }
}

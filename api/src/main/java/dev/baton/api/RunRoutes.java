package dev.baton.api;

import dev.baton.core.adapter.Adapters;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.model.JobConfig;
import dev.baton.store.CreatedRun;
import dev.baton.store.Job;
import dev.baton.store.JobLabels;
import dev.baton.store.NewJob;
import dev.baton.store.NewReport;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.Role;
import dev.baton.store.Spec;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.Principal;
import dev.baton.web.auth.RouteAccess;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.time.Instant;

/**
 * {@code POST /v0/run}: a direct run's results go through the report's adapter (as a runner's
 * output would) and are stored on a new report; a runner run stores a
 * report with placeholder times and a pending job in one transaction, then tells dispatch.
 */
public final class RunRoutes implements RouteModule {

    private final ApiContext api;
    private final KnownProjects projects;
    private final RunValidator validator;

    public RunRoutes(ApiContext api) {
        this.api = api;
        this.projects = new KnownProjects(api.store());
        this.validator = new RunValidator(api.store(), projects, api.images(), new Adapters());
    }

    /** The response of a run: its report, and for runner runs the queued job. */
    public record RunView(ReportView report, JobView job) {}

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post("/v0/run", this::run, RouteAccess.inHandler(Role.SUBMITTER));
        config.routes.post(
                "/v0/runners/{runner}/canary", this::canary, RouteAccess.admin().audited("runner.canary_submitted"));
        config.routes.post(
                "/v0/projects/{project}/jobs/{job}/rerun",
                this::rerun,
                RouteAccess.onProject(Role.SUBMITTER).audited("job.rerun"));
    }

    /**
     * Submits a job again with its configuration ({@link RerunRequest}): a new report and job, as
     * {@code POST /v0/run} with the same body would make, counted against the token's limit alike.
     * A submitter of the project may (the access its routes are registered with); the answer is the run's.
     */
    private void rerun(Context ctx) {
        Lookups find = new Lookups(api.store());
        Project project = find.project(ctx.pathParam("project"));
        Job before = find.job(project, ctx.pathParam("job"));
        Report report = api.store().runs().findReport(before.reportId()).orElseThrow();
        Spec spec = api.store()
                .specs()
                .findSpec(before.specId())
                .orElseThrow(() -> ApiException.conflict(
                        "spec_deleted", "the job's spec no longer exists; submit the run with another spec"));
        RunRequest request = RerunRequest.of(
                project,
                before,
                report,
                spec,
                api.store().runs().retryPolicy(before.id()).orElse(null),
                api.store().runs().jobLabels(before.id()),
                api.store().alerts().codeHosts().reportReview(report.id()));
        Principal who = api.access().authenticate(ctx);
        ValidRun run = validator.validate(request);
        api.submissions().acquire(who, ctx);
        NewJob.Submitter submitter = who instanceof Principal.TokenHolder t
                ? new NewJob.Submitter(t.user().id(), t.token().id())
                : null;
        RunLineage lineage = RunLineage.of(request, api.store(), run.project().id());
        Json.write(ctx, 201, submit(run, ctx.ip(), submitter, null, lineage));
    }

    /**
     * A canary for a quarantined runner (docs/scheduling.md, "Canary release"): the body is a runner
     * run as for {@code POST /v0/run}; its job goes to that runner only, even while quarantined,
     * and lifts the quarantine when it passes. Admin only (the access its routes are registered with).
     */
    private void canary(Context ctx) {
        String ref = ctx.pathParam("runner");
        dev.baton.store.Runner runner = new Lookups(api.store()).runner(ref);
        RunRequest request = api.body(ctx, RunRequest.class);
        ValidRun run = validator.validate(request);
        if (!(run instanceof ValidRun.OnRunner onRunner)) {
            throw new dev.baton.web.http.ApiException(
                    400,
                    "canary_needs_runner",
                    "a canary is a run on the runner (an image or a cmd with a spec), not results",
                    "results");
        }
        if (!runner.isQuarantined()) {
            throw dev.baton.web.http.ApiException.conflict(
                    "runner_not_quarantined", "runner '" + ref + "' is not quarantined; a canary lifts a quarantine");
        }
        if (api.store().specs().runnerSpecs(runner.id()).stream()
                .noneMatch(spec -> spec.id() == onRunner.spec().id())) {
            throw new dev.baton.web.http.ApiException(
                    409,
                    "spec_not_served",
                    "runner '" + ref + "' does not serve spec '"
                            + onRunner.spec().slug() + "'; give the canary one of its specs",
                    "spec");
        }
        Json.write(
                ctx,
                201,
                submit(
                        run,
                        ctx.ip(),
                        null,
                        runner.id(),
                        RunLineage.of(request, api.store(), run.project().id())));
    }

    private void run(Context ctx) {
        RunRequest request = api.body(ctx, RunRequest.class);
        // The project is decided before anything else is looked at: missing and out of reach get the
        // same 404 whatever else is wrong with the run, so a token learns nothing about others' projects.
        Principal who = api.access().authenticate(ctx);
        if (who instanceof Principal.TokenHolder
                && request.project() != null
                && !request.project().isBlank()) {
            AccessControl.reachableProject(
                    who, projects.find(ResourceId.of(request.project())), Role.SUBMITTER, request.project(), "project");
        }
        // Validation resolves the same reference from the same per-node map: no second read.
        ValidRun run = validator.validate(request);
        // A project that appeared between the check and validation is checked again on what validation resolved.
        AccessControl.requireProject(who, run.project(), Role.SUBMITTER, request.project(), "project");
        RunLineage lineage = RunLineage.of(request, api.store(), run.project().id());
        // Only runs that would be stored count against the token's limit; a refused one changes nothing.
        api.submissions().acquire(who, ctx);
        NewJob.Submitter submitter = who instanceof Principal.TokenHolder t
                ? new NewJob.Submitter(t.user().id(), t.token().id())
                : null;
        Json.write(ctx, 201, submit(run, ctx.ip(), submitter, null, lineage));
    }

    /** Checks a run body without submitting it (a schedule checks its run when it is created). */
    void validate(RunRequest request) {
        validator.validate(request);
    }

    /**
     * Validates and submits one run of a schedule (only the admin creates schedules, so the run has
     * no submitting user); {@code origin} is recorded on the job as where it came from.
     */
    RunView submit(RunRequest request, String origin) {
        ValidRun run = validator.validate(request);
        return submit(
                run,
                origin,
                null,
                null,
                RunLineage.of(request, api.store(), run.project().id()));
    }

    /** Stores one validated run, as {@code POST /v0/run} does, and tells dispatch about its job; {@code canaryRunner} pins it to that runner. */
    private RunView submit(
            ValidRun run, String origin, NewJob.Submitter submitter, Long canaryRunner, RunLineage lineage) {
        Instant now = api.now();
        lineage.recordStartPoint(api.store(), run.project().id(), run.branch(), now);
        switch (run) {
            case ValidRun.Direct d -> {
                Report report = api.store()
                        .runs()
                        .createReport(
                                new NewReport(
                                        d.project().id(),
                                        d.branch(),
                                        d.testbed(),
                                        d.adapter(),
                                        d.startTime(),
                                        d.endTime(),
                                        d.results()),
                                now);
                lineage.recordHash(api.store(), report.id());
                // A direct run is processed as it is stored: judged now, so the answer carries its alerts.
                Judgements.judge(api.store(), api.clock(), report.id(), api.judged());
                return new RunView(
                        Judgements.add(
                                api.store(),
                                report,
                                ReportView.of(report, d.project().uuid(), null)),
                        null);
            }
            case ValidRun.OnRunner r -> {
                Organization org = api.store()
                        .organizations()
                        .findOrganization(r.project().organizationId())
                        .orElseThrow(() -> new IllegalStateException(
                                "project " + r.project().uuid() + " has no organization"));
                JobConfig config = new JobConfig(
                        api.publicUrl().get(),
                        r.project().uuid(),
                        r.image(),
                        r.entrypoint(),
                        r.cmd(),
                        r.env(),
                        r.timeout(),
                        r.filePaths(),
                        r.paired() == null ? r.iterations() : null,
                        r.paired());
                // The lineage is written once the run is committed and before a runner is sent its
                // job (dispatch may claim it in the same commit, decision 0063).
                CreatedRun created = api.jobEvents()
                        .submit(
                                api.store().runs(),
                                new NewReport(
                                        r.project().id(),
                                        r.branch(),
                                        r.testbed(),
                                        r.adapter(),
                                        r.resultsFile(),
                                        now,
                                        now,
                                        null),
                                new NewJob(
                                        r.spec().id(),
                                        origin,
                                        config,
                                        r.timeout().seconds(),
                                        org.plan().priority(),
                                        r.retry(),
                                        r.queueTimeout(),
                                        submitter,
                                        r.labels(),
                                        canaryRunner),
                                org.id(),
                                now,
                                stored -> lineage.recordHash(
                                        api.store(), stored.report().id()));
                Job job = created.job();
                Report report = created.report();
                JobLabels labels = r.labels() == null ? JobLabels.NONE : r.labels();
                JobView view = new JobViews(api.store(), r.project(), api.queue())
                        .knowing(report)
                        .knowing(job, r.spec(), labels)
                        .of(job, null);
                return new RunView(ReportView.of(report, r.project().uuid(), view), view);
            }
        }
    }
}

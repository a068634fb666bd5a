package dev.baton.api;

import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.store.Job;
import dev.baton.store.JobFilter;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.Transition;
import dev.baton.web.auth.CancelRight;
import dev.baton.web.auth.Principal;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Project-scoped jobs: list (filtered, paginated), get with output, cancel. */
public final class JobRoutes implements RouteModule {
    private static final Logger LOG = LoggerFactory.getLogger(JobRoutes.class);
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 500;

    private final ApiContext api;
    private final Lookups find;

    public JobRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    /** One page of jobs, newest first; {@code next_offset} is present when there are more. */
    public record JobPage(List<JobView> jobs, int limit, int offset, Integer nextOffset) {}

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get("/v0/projects/{project}/jobs", this::list);
        config.routes.get("/v0/projects/{project}/jobs/{job}", this::get);
        config.routes.post("/v0/projects/{project}/jobs/{job}/cancel", this::cancel);
        config.routes.get("/v0/projects/{project}/reports/{report}", this::report);
    }

    /** A report with its merged results, its iterations, its adapter error and its job (null for a direct run). */
    private void report(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("report");
        ReportUuid uuid;
        try {
            uuid = ReportUuid.parse(ref);
        } catch (IllegalArgumentException e) {
            throw reportNotFound(ref);
        }
        Report report = api.store()
                .runs()
                .findReport(uuid)
                .filter(r -> r.projectId() == project.id())
                .orElseThrow(() -> reportNotFound(ref));
        // With the attempts: the report shows the machine fingerprint its numbers were measured on.
        JobView job = api.store()
                .runs()
                .findJobOfReport(report.id())
                .map(j -> new JobViews(api.store(), project).of(j, null, true))
                .orElse(null);
        Json.write(ctx, 200, Judgements.add(api.store(), report, ReportView.of(report, project.uuid(), job)));
    }

    private static ApiException reportNotFound(String ref) {
        return ApiException.notFound("report_not_found", "no report '" + ref + "' in this project");
    }

    private void list(Context ctx) {
        JobStatus status = ctx.queryParam("status") == null
                ? null
                : parseParam("status", ctx.queryParam("status"), JobStatus::parse);
        int limit = Fields.intParam("limit", ctx.queryParam("limit"), DEFAULT_LIMIT, 1, MAX_LIMIT);
        int offset = Fields.intParam("offset", ctx.queryParam("offset"), 0, 0, Integer.MAX_VALUE - MAX_LIMIT - 1);
        Project project = find.project(ctx.pathParam("project"));
        Long specId = ctx.queryParam("spec") == null
                ? null
                : find.spec(ctx.queryParam("spec")).id();
        Long runnerId = ctx.queryParam("runner") == null
                ? null
                : find.runner(ctx.queryParam("runner")).id();
        // One row more than asked tells whether another page exists, without a count query.
        List<Job> jobs =
                api.store().runs().listJobs(project.id(), new JobFilter(status, specId, runnerId, limit + 1, offset));
        boolean more = jobs.size() > limit;
        JobViews views = new JobViews(api.store(), project, api.queue());
        List<JobView> page =
                jobs.stream().limit(limit).map(j -> views.of(j, null)).toList();
        Json.write(ctx, 200, new JobPage(page, limit, offset, more ? offset + limit : null));
    }

    private void get(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        Job job = find.job(project, ctx.pathParam("job"));
        var output =
                api.outputs().get(project.uuid(), job.uuid(), job.attempt()).orElse(null);
        Json.write(ctx, 200, new JobViews(api.store(), project, api.queue()).of(job, output, true));
    }

    private void cancel(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        Job before = find.job(project, ctx.pathParam("job"));
        requireCancelable(ctx, project, before);
        Instant at = api.now();
        Transition t = api.store()
                .transitions()
                .cancel(
                        before.uuid(),
                        null,
                        "canceled by user",
                        at,
                        api.jobEvents().cancelDeadline(at));
        switch (t.result()) {
            case APPLIED -> {
                try {
                    api.jobEvents().jobCanceled(before, t.job());
                } catch (RuntimeException e) {
                    LOG.warn("dispatch was not told about canceled job {}", before.uuid(), e);
                }
                Json.write(ctx, 200, new JobViews(api.store(), project).of(t.job(), null));
            }
            case NOT_FOUND -> throw Lookups.jobNotFound(ctx.pathParam("job"));
            case DUPLICATE, CONFLICT, STALE -> {
                JobStatus now = t.job() == null ? before.status() : t.job().status();
                throw ApiException.conflict(
                        "job_not_cancelable",
                        "job is " + now.wireName() + "; only pending, claimed or running jobs can be canceled");
            }
        }
    }

    /** A submitter cancels only the jobs its user submitted; a maintainer (or the admin) any job of the project ({@link CancelRight}). */
    private void requireCancelable(Context ctx, Project project, Job job) {
        Principal who = api.access().authenticate(ctx);
        if (!CancelRight.mayCancel(who, project, () -> api.store().access().jobSubmitter(job.id()))) {
            throw new ApiException(
                    403,
                    "forbidden",
                    "a submitter cancels only the jobs its user submitted; canceling others' jobs needs role maintainer");
        }
    }

    private static <T> T parseParam(String name, String raw, Function<String, T> parser) {
        try {
            return parser.apply(raw);
        } catch (IllegalArgumentException e) {
            throw new ApiException(400, "invalid_parameter", e.getMessage(), name);
        }
    }
}

package dev.baton.api;

import dev.baton.core.config.ShippedVersion;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.store.KnownMachine;
import dev.baton.store.Runner;
import dev.baton.store.RunnerFilter;
import dev.baton.store.Spec;
import dev.baton.store.StoreException;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.util.List;
import java.util.Map;

/** Runner management and runner–spec association (seed 001, server scoped; who may call what: auth.RouteTable). */
public final class RunnerRoutes implements RouteModule {
    private final ApiContext api;
    private final Lookups find;

    public RunnerRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    /**
     * {@code ephemeral}: a single-job runner (issue 43); {@code job} (a job's UUID, only with
     * {@code ephemeral}): the job it is bound to, which it alone takes and is the only one it takes.
     */
    record CreateRunner(String name, String slug, Boolean ephemeral, String job) {}

    /** {@code labels} (optional) replaces the labels the admin set; {} removes them all. */
    record UpdateRunner(String name, String slug, Boolean archived, java.util.Map<String, String> labels) {}

    record AddSpec(String spec) {}

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post("/v0/runners", this::create);
        config.routes.get("/v0/runners", this::list);
        config.routes.get("/v0/runners/{runner}", this::get);
        config.routes.patch("/v0/runners/{runner}", this::update);
        config.routes.post("/v0/runners/{runner}/token", this::rotate);
        config.routes.post("/v0/runners/{runner}/release", this::release);
        config.routes.get("/v0/runners/{runner}/specs", this::listSpecs);
        config.routes.post("/v0/runners/{runner}/specs", this::addSpec);
        config.routes.delete("/v0/runners/{runner}/specs/{spec}", this::removeSpec);
    }

    private void create(Context ctx) {
        CreateRunner body = api.body(ctx, CreateRunner.class);
        String name = Fields.name("name", Fields.require("name", body.name()));
        Slug slug = Fields.slug("slug", body.slug());
        // A runner's name is how people tell runners apart (logs, `runners list`): a name in use is
        // refused rather than silently given a renamed slug.
        List<Runner> same = api.store().runners().listRunners(new RunnerFilter(name, null, true));
        if (!same.isEmpty()) {
            Runner other = same.getFirst();
            throw new ApiException(
                    409,
                    "runner_name_taken",
                    "runner name '" + name + "' is in use by runner '" + other.slug() + "'"
                            + (other.isArchived() ? " (archived)" : "") + "; choose another name",
                    "name");
        }
        boolean ephemeral = Boolean.TRUE.equals(body.ephemeral());
        Long boundJob = null;
        if (body.job() != null) {
            if (!ephemeral)
                throw ApiException.invalidField("job", "only a single-job runner (ephemeral: true) is bound to a job");
            boundJob = boundJob(body.job());
        }
        RunnerKey key = RunnerKey.generate();
        Slug effective = slug != null ? slug : Slug.fromName(name);
        Runner runner;
        try {
            runner = ephemeral
                    ? api.store().runners().createEphemeralRunner(name, effective, key.hash(), boundJob, api.now())
                    : api.store().runners().createRunner(name, effective, key.hash(), api.now());
        } catch (StoreException e) {
            if (e.reason() == StoreException.Reason.CONFLICT && e.getMessage().startsWith("the job is not pending"))
                throw jobNotPending(body.job());
            if (e.reason() == StoreException.Reason.CONFLICT) {
                if (slug != null) throw Slugs.taken(slug);
                throw new ApiException(
                        409,
                        "runner_name_taken",
                        "runner name '" + name + "' gives slug '" + effective
                                + "', which another runner has; choose another name or give a slug",
                        "name");
            }
            throw e;
        }
        Json.write(ctx, 201, new RunnerKeyView(view(runner), key.reveal()));
    }

    /** The row id of the pending job a single-job runner is bound to (any project: this route is the admin's). */
    private Long boundJob(String ref) {
        dev.baton.protocol.id.JobUuid uuid;
        try {
            uuid = dev.baton.protocol.id.JobUuid.parse(ref);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("job", "job must be a job's UUID");
        }
        var job = api.store()
                .runs()
                .findJob(uuid)
                .orElseThrow(() -> ApiException.notFound("job_not_found", "no job '" + ref + "'"));
        if (job.status() != dev.baton.protocol.job.JobStatus.PENDING) throw jobNotPending(ref);
        return job.id();
    }

    private static ApiException jobNotPending(String ref) {
        return new ApiException(
                409,
                "job_not_pending",
                "job '" + ref + "' is not pending, or another single-job runner is bound to it;"
                        + " a runner is bound only to a job that waits",
                "job");
    }

    private void list(Context ctx) {
        String name = ctx.queryParam("name");
        String search = ctx.queryParam("search");
        boolean archived = Fields.flag("archived", ctx.queryParam("archived"));
        Map<Long, KnownMachine> machines = api.store().runners().latestMachines();
        List<RunnerView> runners = api
                .store()
                .runners()
                .listRunners(new RunnerFilter(blankToNull(name), blankToNull(search), archived))
                .stream()
                .map(r -> view(r, machines.get(r.id())))
                .toList();
        Json.write(ctx, 200, runners);
    }

    private void get(Context ctx) {
        Json.write(ctx, 200, view(find.runner(ctx.pathParam("runner"))));
    }

    private void update(Context ctx) {
        UpdateRunner body = api.body(ctx, UpdateRunner.class);
        String name = Fields.name("name", body.name());
        Slug slug = Fields.slug("slug", body.slug());
        var labels = Fields.parse("labels", body.labels(), dev.baton.protocol.value.Labels::of);
        Runner runner = find.runner(ctx.pathParam("runner"));
        try {
            Runner updated = api.store().runners().updateRunner(runner.id(), name, slug, body.archived(), api.now());
            if (labels != null) api.store().runners().setRunnerLabels(runner.id(), true, labels, api.now());
            Json.write(ctx, 200, view(updated));
        } catch (StoreException e) {
            if (e.reason() == StoreException.Reason.CONFLICT && slug != null) throw Slugs.taken(slug);
            throw e;
        }
    }

    private void rotate(Context ctx) {
        Runner runner = find.runner(ctx.pathParam("runner"));
        if (runner.isArchived()) throw archived(runner);
        RunnerKey key = RunnerKey.generate();
        try {
            Runner rotated = api.store().runners().rotateRunnerKey(runner.id(), key.hash(), api.now());
            Json.write(ctx, 200, new RunnerKeyView(view(rotated), key.reveal()));
        } catch (StoreException e) {
            // archived between our read and the update
            if (e.reason() == StoreException.Reason.CONFLICT) throw archived(runner);
            throw e;
        }
    }

    /** Lifts a quarantine (docs/scheduling.md); releasing a runner that is not quarantined changes nothing but its count's start. */
    private void release(Context ctx) {
        Runner runner = find.runner(ctx.pathParam("runner"));
        Json.write(ctx, 200, view(api.store().runners().releaseRunner(runner.id(), api.now())));
    }

    private static ApiException archived(Runner runner) {
        return ApiException.conflict(
                "runner_archived",
                "runner '" + runner.slug()
                        + "' is archived; restore it (PATCH archived=false) before rotating its key");
    }

    private void listSpecs(Context ctx) {
        Runner runner = find.runner(ctx.pathParam("runner"));
        Json.write(
                ctx,
                200,
                api.store().specs().runnerSpecs(runner.id()).stream()
                        .map(Spec::view)
                        .toList());
    }

    private void addSpec(Context ctx) {
        AddSpec body = api.body(ctx, AddSpec.class);
        String ref = Fields.require("spec", body.spec());
        Fields.resourceId("spec", ref);
        Runner runner = find.runner(ctx.pathParam("runner"));
        Spec spec = api.store()
                .specs()
                .findSpec(ResourceId.of(ref))
                .orElseThrow(() -> new ApiException(404, "spec_not_found", "no spec '" + ref + "'", "spec"));
        if (spec.archived() != null) {
            throw new ApiException(409, "spec_archived", "spec '" + spec.slug() + "' is archived", "spec");
        }
        api.store().specs().addRunnerSpec(runner.id(), spec.id());
        Json.write(
                ctx,
                201,
                api.store().specs().runnerSpecs(runner.id()).stream()
                        .map(Spec::view)
                        .toList());
    }

    private void removeSpec(Context ctx) {
        Runner runner = find.runner(ctx.pathParam("runner"));
        Spec spec = find.spec(ctx.pathParam("spec"));
        if (!api.store().specs().removeRunnerSpec(runner.id(), spec.id())) {
            throw ApiException.notFound(
                    "runner_spec_not_found",
                    "runner '" + runner.slug() + "' does not serve spec '" + spec.slug() + "'");
        }
        ctx.status(204);
    }

    private RunnerView view(Runner r) {
        return view(r, api.store().runners().latestMachine(r.id()).orElse(null));
    }

    private RunnerView view(Runner r, KnownMachine machine) {
        return RunnerView.of(r, api.store().runners().runnerLabels(r.id()), machine, ShippedVersion.value());
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}

package dev.baton.console;

import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.Views.Confirmation;
import dev.baton.console.Views.Link;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.store.Job;
import dev.baton.store.Project;
import dev.baton.store.Runner;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpStatus;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The web console (docs/console.md), served by the server itself: pages rendered from jte
 * templates compiled at build time, live parts refreshed by htmx on the Server-Sent Events of
 * {@link ConsoleEvents}, a job's log followed from the same stream the API serves. Every page needs
 * a signed-in viewer ({@link ConsoleSignIn}); every form carries a CSRF token; every change is a
 * call to the /v0 API ({@link ConsoleApi}). The routes, as a table:
 *
 * <pre>
 * GET  /                                              → the runners page
 * GET  /console/sign-in, POST /console/sign-in, POST /console/sign-out   (SignInPage)
 * GET  /console/events                                  SSE: runners, jobs, job-{uuid}
 * GET  /console/runners                                 POST …/{runner}/drain, …/archive, …/rotate, …/release
 * GET  /console/runners/new, POST /console/runners         a new runner; its key shown once (FleetForms)
 * GET  /console/runners/{runner}/specs                  POST the same: the specs it serves (FleetForms)
 * GET  /console/pools                                 runner pools and their machines (PoolPages)
 * GET  /console/noise; POST /console/runners/{runner}/noise   each runner's noise, measure now (NoisePages)
 * GET  /console/rolls, /console/rolls/new, /console/rolls/{roll}; POST /console/rolls   fleet upgrades (RollPages)
 * GET  /console/specs, /console/queue, /console/projects
 * GET  /console/organizations, /console/organizations/{organization}   ?from, to: usage per project (UsagePages)
 * GET  /console/specs/new, POST /console/specs; GET /console/specs/{spec}/edit, POST /console/specs/{spec}  (FleetForms)
 * GET  /console/projects/{project}/jobs                 ?status, spec, runner, branch, submitter, offset
 * GET  /console/projects/{project}/jobs/{job}           POST …/cancel, …/rerun; GET …/log (SSE), …/log.txt (the whole log,
 *                                                     text/plain), …/compare, …/files/{iteration}/{path} (a collected file)
 * GET  /console/projects/{project}/alerts               POST …/alerts/{alert}/dismiss (confirmed), …/reopen,
 *                                                      …/alert-groups/{group}/triage
 * GET  /console/projects/{project}/metrics              ?benchmark, measure, branch, testbed; …/metrics/data (the plot's JSON)
 * GET  /console/projects/{project}/registry
 * GET  /console/projects/{project}/code-hosts            POST the same (add, new token), …/{host}/delete (CodeHostPages)
 * GET  /console/ojs-workers                             POST …/{worker}/quiet, …/terminate, …/resume (OjsWorkerPages)
 * GET  /console/static/{file}                           console.css, console.js, htmx, its SSE extension, uPlot
 * </pre>
 */
public final class ConsoleModule implements RouteModule, AutoCloseable {
    private final Store store;
    private final ConsoleSignIn signIn;
    private final ConsolePages pages;
    private final ConsoleEvents events;
    private final ConsoleApi api = new ConsoleApi();
    private final RawLog rawLog = new RawLog(api);
    private final Handler logStream;
    private final Supplier<String> publicUrl;
    private final Lookups find;
    private final StaticAssets assets = new StaticAssets();
    private final FleetForms fleet;
    private final UsagePages usage;
    private final RollPages rolls;
    private final OjsWorkerPages ojsWorkers;
    private final PoolPages pools;
    private final NoisePages noise;
    private final CodeHostPages codeHosts;
    private final TemplateScreen screen;
    private final SignInPage signInPage;
    private final RunnerActions runnerActions;
    private final AlertActions alertActions;

    /**
     * @param logStream the API's job log handler (it reads the {project} and {job} path parameters),
     *     run here after the console's own sign-in check
     * @param clock     the server's clock: pages carry its time, so live times do not depend on the browser's
     */
    public ConsoleModule(
            Store store,
            ConsoleSignIn signIn,
            ConsolePages pages,
            ConsoleEvents events,
            Handler logStream,
            Supplier<String> publicUrl,
            Clock clock) {
        this.store = store;
        this.signIn = signIn;
        this.pages = pages;
        this.events = events;
        this.logStream = logStream;
        this.publicUrl = publicUrl;
        this.find = new Lookups(store);
        this.screen = new TemplateScreen(clock);
        this.signInPage = new SignInPage(signIn, screen, publicUrl);
        this.fleet = new FleetForms(store, api, screen);
        this.usage = new UsagePages(api, screen);
        this.rolls = new RollPages(store, api, screen);
        this.ojsWorkers = new OjsWorkerPages(api, screen);
        this.pools = new PoolPages(store, clock, screen);
        this.noise = new NoisePages(api, screen);
        this.codeHosts = new CodeHostPages(api, screen);
        this.runnerActions = new RunnerActions(api, screen);
        this.alertActions = new AlertActions(api, screen);
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        var r = config.routes;
        r.get("/", ctx -> ctx.redirect(signInPage.home(ctx), HttpStatus.SEE_OTHER));
        r.get("/console", ctx -> ctx.redirect(signInPage.home(ctx), HttpStatus.SEE_OTHER));
        r.get("/console/sign-in", signInPage::page);
        r.post("/console/sign-in", signInPage::submit);
        r.post("/console/sign-out", action(signInPage::signOut));
        r.get("/console/events", ctx -> events.stream(ctx, () -> viewer(ctx).map(Viewer::principal)));
        r.get(
                "/console/runners",
                page((ctx, v) -> screen.render(
                        ctx,
                        200,
                        "runners.jte",
                        screen.chrome("Runners", "runners", admin(v)),
                        "runners",
                        pages.runners(),
                        "roll",
                        rolls.blankForm())));
        r.post("/console/runners/{runner}/drain", action(runnerActions::drain));
        r.post("/console/runners/{runner}/archive", action(runnerActions::archive));
        r.post("/console/runners/{runner}/rotate", action(runnerActions::rotate));
        r.post("/console/runners/{runner}/release", action(runnerActions::release));
        r.get("/console/runners/new", page(fleet::newRunner));
        r.post("/console/runners", action(fleet::createRunner));
        r.get("/console/runners/{runner}/specs", page(fleet::runnerSpecs));
        r.post("/console/runners/{runner}/specs", action(fleet::assignSpecs));
        r.get("/console/specs/new", page(fleet::newSpec));
        r.post("/console/specs", action(fleet::createSpec));
        r.get("/console/specs/{spec}/edit", page(fleet::editSpec));
        r.post("/console/specs/{spec}", action(fleet::updateSpec));
        r.get("/console/rolls", page(rolls::rolls));
        r.get("/console/rolls/new", page(rolls::newRoll));
        r.post("/console/rolls", action(rolls::start));
        r.get("/console/rolls/{roll}", page(rolls::roll));
        r.get("/console/ojs-workers", page(ojsWorkers::list));
        r.get("/console/pools", page(pools::list));
        r.get("/console/noise", page(noise::list));
        r.post("/console/runners/{runner}/noise", action(noise::measure));
        r.post("/console/ojs-workers/{worker}/{direction}", action(ojsWorkers::direct));
        r.get("/console/organizations", page(usage::organizations));
        r.get("/console/organizations/{organization}", page(usage::organization));
        r.get(
                "/console/specs",
                page((ctx, v) -> screen.render(
                        ctx, 200, "specs.jte", screen.chrome("Specs", "specs", admin(v)), "specs", pages.specs())));
        r.get(
                "/console/queue",
                page((ctx, v) -> screen.render(
                        ctx, 200, "queue.jte", screen.chrome("Queue", "queue", admin(v)), "queue", pages.queue())));
        r.get(
                "/console/projects",
                page((ctx, v) -> screen.render(
                        ctx,
                        200,
                        "projects.jte",
                        screen.chrome("Projects", "projects", v),
                        "projects",
                        pages.projects(v::mayRead))));
        r.get("/console/projects/{project}/jobs", page(this::jobs));
        r.get("/console/projects/{project}/jobs/{job}", page((ctx, v) -> {
            Project project = project(ctx, v);
            Job job = find.job(project, ctx.pathParam("job"));
            String name = "Job " + job.uuid().toString().substring(0, 8);
            screen.render(
                    ctx,
                    200,
                    "job.jte",
                    screen.chrome(name, "projects", v).withTab(job.status().wireName() + " · " + name),
                    "page",
                    pages.job(project, job, v.principal()));
        }));
        r.get("/console/projects/{project}/jobs/{job}/log.txt", page((ctx, v) -> rawLog.serve(ctx, v)));
        r.get("/console/projects/{project}/jobs/{job}/files/{iteration}/<path>", page(this::file));
        r.get("/console/projects/{project}/jobs/{job}/compare", page((ctx, v) -> {
            Project project = project(ctx, v);
            Job job = find.job(project, ctx.pathParam("job"));
            screen.render(
                    ctx,
                    200,
                    "compare.jte",
                    screen.chrome("Compare job " + job.uuid().toString().substring(0, 8), "projects", v),
                    "page",
                    pages.compare(project, job));
        }));
        r.post("/console/projects/{project}/jobs/{job}/rerun", action(this::rerun));
        r.get("/console/projects/{project}/jobs/{job}/log", ctx -> {
            Optional<Viewer> v = viewer(ctx);
            if (v.isEmpty()) {
                ctx.status(401).result("sign in first");
                return;
            }
            project(ctx, v.get()); // a project the viewer may not read is not found
            if (!v.get().admin())
                AccessControl.reauthenticateWith(
                        ctx, () -> viewer(ctx).map(Viewer::principal)); // a follower who loses the project stops
            logStream.handle(ctx);
        });
        r.post("/console/projects/{project}/jobs/{job}/cancel", action(this::cancel));
        r.get("/console/projects/{project}/alerts", page((ctx, v) -> {
            Project project = project(ctx, v);
            screen.render(
                    ctx,
                    200,
                    "alerts.jte",
                    screen.chrome("Alerts · " + project.name(), "projects", v),
                    "page",
                    pages.alerts(project, v.principal()));
        }));
        r.post(
                "/console/projects/{project}/alerts/{alert}/dismiss",
                action((ctx, v) -> alertActions.triage(ctx, v, "dismiss")));
        r.post(
                "/console/projects/{project}/alerts/{alert}/reopen",
                action((ctx, v) -> alertActions.triage(ctx, v, "reopen")));
        r.post("/console/projects/{project}/alert-groups/{group}/triage", action(alertActions::triageGroup));
        r.get("/console/projects/{project}/metrics", page((ctx, v) -> {
            Project project = project(ctx, v);
            screen.render(
                    ctx,
                    200,
                    "metrics.jte",
                    screen.chrome("Metrics · " + project.name(), "projects", v),
                    "page",
                    pages.metrics(
                            project,
                            blank(ctx.queryParam("benchmark")),
                            blank(ctx.queryParam("measure")),
                            blank(ctx.queryParam("branch")),
                            blank(ctx.queryParam("testbed"))));
        }));
        r.get("/console/projects/{project}/metrics/data", page((ctx, v) -> {
            Project project = project(ctx, v);
            String benchmark = blank(ctx.queryParam("benchmark"));
            String measure = blank(ctx.queryParam("measure"));
            if (benchmark == null || measure == null)
                throw new ApiException(400, "invalid_parameter", "benchmark and measure are required");
            ctx.contentType("application/json")
                    .result(dev.baton.protocol.message.Wire.encode(pages.metricData(
                            project,
                            benchmark,
                            measure,
                            blank(ctx.queryParam("branch")),
                            blank(ctx.queryParam("testbed")))));
        }));
        r.get("/console/projects/{project}/code-hosts", page(codeHosts::page));
        r.post("/console/projects/{project}/code-hosts", action(codeHosts::set));
        r.post("/console/projects/{project}/code-hosts/{host}/delete", action(codeHosts::delete));
        r.get("/console/projects/{project}/registry", page((ctx, v) -> {
            Project project = project(ctx, v);
            screen.render(
                    ctx,
                    200,
                    "registry.jte",
                    screen.chrome("Registry · " + project.name(), "projects", v),
                    "page",
                    pages.registry(project, publicUrl.get()));
        }));
        r.get("/console/static/{file}", assets::serve);
        // The event streams must not hold up a graceful stop.
        config.events.serverStopping(events::close);
    }

    // ---- guards ----------------------------------------------------------------------------------

    private Optional<Viewer> viewer(Context ctx) {
        return signIn.viewer(ctx);
    }

    /** A page or an action, run for a signed-in viewer. */
    private interface ViewerHandler {
        void handle(Context ctx, Viewer viewer) throws Exception;
    }

    /** A page: signed-out visitors go to the sign-in page; an unknown project or job is a 404 page. */
    private Handler page(ViewerHandler handler) {
        return ctx -> {
            SecurityHeaders.apply(ctx);
            Optional<Viewer> viewer = viewer(ctx);
            if (viewer.isEmpty()) {
                // An htmx background refresh would follow a 303 invisibly; HX-Redirect moves the whole page.
                if (ctx.header("HX-Request") != null) ctx.status(204).header("HX-Redirect", "/console/sign-in");
                else ctx.redirect("/console/sign-in", HttpStatus.SEE_OTHER);
                return;
            }
            run(ctx, viewer.get(), handler);
        };
    }

    /** A form post: signed in, and its CSRF token matches the session's; otherwise refused and nothing changes. */
    private Handler action(ViewerHandler handler) {
        return ctx -> {
            SecurityHeaders.apply(ctx);
            Optional<Viewer> viewer = viewer(ctx);
            if (viewer.isEmpty()) {
                ctx.status(401);
                signInPage.show(ctx, 401, "Sign in to do that.");
                return;
            }
            if (!Csrf.matches(viewer.get().csrf(), ctx.formParam(Csrf.FIELD))) {
                screen.message(
                        ctx,
                        403,
                        viewer.get(),
                        "Refused",
                        "The form's CSRF token is missing or wrong, so nothing was changed. Reload the page and try again.");
                return;
            }
            run(ctx, viewer.get(), handler);
        };
    }

    /** Runs the handler; a refusal or an unknown name becomes a page saying so, with its status. */
    private void run(Context ctx, Viewer viewer, ViewerHandler handler) throws Exception {
        try {
            handler.handle(ctx, viewer);
        } catch (ApiException e) {
            screen.message(ctx, e.status(), viewer, e.status() == 404 ? "Not found" : "Refused", e.getMessage());
        } catch (IllegalArgumentException e) {
            // a name that cannot even be a slug or UUID (Lookups)
            screen.message(ctx, 404, viewer, "Not found", e.getMessage());
        }
    }

    // ---- pages -----------------------------------------------------------------------------------

    private void jobs(Context ctx, Viewer v) {
        Project project = project(ctx, v);
        JobStatus status = null;
        String s = blank(ctx.queryParam("status"));
        if (s != null) {
            try {
                status = JobStatus.parse(s);
            } catch (IllegalArgumentException e) {
                throw new ApiException(400, "invalid_parameter", "no job status '" + s + "'");
            }
        }
        Spec spec = Optional.ofNullable(blank(ctx.queryParam("spec")))
                .map(ref -> store.specs()
                        .findSpec(resource(ref))
                        .orElseThrow(() -> ApiException.notFound("spec_not_found", "no spec '" + ref + "'")))
                .orElse(null);
        Runner runner = Optional.ofNullable(blank(ctx.queryParam("runner")))
                .map(ref -> store.runners()
                        .findRunner(resource(ref))
                        .orElseThrow(() -> ApiException.notFound("runner_not_found", "no runner '" + ref + "'")))
                .orElse(null);
        int offset;
        try {
            offset = Math.max(
                    0,
                    Integer.parseInt(
                            Optional.ofNullable(ctx.queryParam("offset")).orElse("0")));
        } catch (NumberFormatException e) {
            offset = 0;
        }
        var filter = new JobListing.Filter(
                status, spec, runner, blank(ctx.queryParam("branch")), blank(ctx.queryParam("submitter")));
        screen.render(
                ctx,
                200,
                "jobs.jte",
                screen.chrome("Jobs · " + project.name(), "projects", v),
                "page",
                pages.jobs(project, filter, offset));
    }

    /** Server-wide pages (runners, specs, queue) are the admin's. */
    private static Viewer admin(Viewer v) {
        if (!v.admin()) throw new ApiException(403, "forbidden", "this page needs an admin token");
        return v;
    }

    /** The request's project, as unknown to a viewer who may not read it as to anyone (like the API). */
    private Project project(Context ctx, Viewer v) {
        String ref = ctx.pathParam("project");
        Project project = find.project(ref);
        if (!v.mayRead(project)) throw ApiException.notFound("project_not_found", "no project '" + ref + "'");
        return project;
    }

    private static ResourceId resource(String ref) {
        try {
            return ResourceId.of(ref);
        } catch (IllegalArgumentException e) {
            throw ApiException.notFound("not_found", "no such name '" + ref + "'");
        }
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    // ---- actions: each one a /v0 call with the viewer's token ------------------------------------

    private void cancel(Context ctx, Viewer v) throws Exception {
        String path = "/console/projects/" + ctx.pathParam("project") + "/jobs/" + ctx.pathParam("job");
        Link back = new Link(path, "Back to the job");
        if (!screen.confirmed(
                ctx,
                v,
                new Confirmation(
                        "Cancel job " + shortId(ctx.pathParam("job")) + "?",
                        "A pending job will not run; a running one is stopped on its runner. This cannot be undone.",
                        path + "/cancel",
                        Map.of(),
                        "Cancel job",
                        back))) {
            return;
        }
        var answer = api.call(
                ctx,
                "POST",
                "/v0/projects/" + ConsoleApi.segment(ctx.pathParam("project")) + "/jobs/"
                        + ConsoleApi.segment(ctx.pathParam("job")) + "/cancel",
                null,
                v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Not canceled", answer.message(), back);
            return;
        }
        ctx.redirect(path, HttpStatus.SEE_OTHER);
    }

    /** Submits the job again with the same configuration (POST /v0/run with the viewer's token) and opens the new job. */
    private void rerun(Context ctx, Viewer v) throws Exception {
        Project project = project(ctx, v);
        Job job = find.job(project, ctx.pathParam("job"));
        String path = "/console/projects/" + ctx.pathParam("project") + "/jobs/" + ctx.pathParam("job");
        var answer = api.call(ctx, "POST", "/v0/run", pages.rerun(project, job), v.token());
        if (!answer.ok()) {
            screen.message(
                    ctx, answer.status(), v, "Not submitted", answer.message(), new Link(path, "Back to the job"));
            return;
        }
        ctx.redirect(
                "/console/projects/" + project.slug().value() + "/jobs/"
                        + answer.body().at("/job/uuid").asText(),
                HttpStatus.SEE_OTHER);
    }

    /** A collected file, whole, as a download: never rendered by the browser (its content is the job's, not ours). */
    private void file(Context ctx, Viewer v) {
        Project project = project(ctx, v);
        Job job = find.job(project, ctx.pathParam("job"));
        int iteration;
        try {
            iteration = Integer.parseInt(ctx.pathParam("iteration"));
        } catch (NumberFormatException e) {
            throw ApiException.notFound("file_not_found", "no iteration '" + ctx.pathParam("iteration") + "'");
        }
        String path = ctx.pathParam("path");
        String content = pages.file(project, job, iteration, path)
                .orElseThrow(() ->
                        ApiException.notFound("file_not_found", "no file '" + path + "' in iteration " + iteration));
        String name = path.substring(path.lastIndexOf('/') + 1).replaceAll("[^A-Za-z0-9._-]", "_");
        ctx.header("Content-Disposition", "attachment; filename=\"" + (name.isEmpty() ? "file" : name) + "\"");
        ctx.contentType("application/octet-stream").result(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    static String shortId(String job) {
        return job.length() > 8 ? job.substring(0, 8) : job;
    }

    @Override
    public void close() {
        events.close();
        api.close();
    }
}

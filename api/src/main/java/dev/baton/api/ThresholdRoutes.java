package dev.baton.api;

import dev.baton.alerts.InvalidThreshold;
import dev.baton.alerts.ThresholdRules;
import dev.baton.core.adapter.Measures;
import dev.baton.protocol.id.ResourceId;
import dev.baton.store.Project;
import dev.baton.store.Role;
import dev.baton.store.Spec;
import dev.baton.store.Threshold;
import dev.baton.store.ThresholdRule;
import dev.baton.web.auth.RouteAccess;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * {@code /v0/projects/{project}/thresholds} (docs/alerts.md): which metrics of a project are
 * judged and how. Reading is for viewers, changing for maintainers (the access its routes are registered with). A threshold
 * that does not check out (unknown model or measure, a boundary outside its range, a window of
 * 0) is a 400 that names the field and changes nothing.
 */
final class ThresholdRoutes implements RouteModule {
    private static final Pattern MEASURE = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
    private static final Set<String> BUILT_IN_MEASURES = Set.of(
            Measures.LATENCY, Measures.THROUGHPUT, Measures.BANDWIDTH, Measures.ALLOCATED_BYTES, Measures.ALLOCATIONS);

    private final ApiContext api;
    private final Lookups find;

    /** The body of a create or a replace; absent window and boundaries take the defaults of docs/alerts.md. */
    record ThresholdBody(
            String branch,
            String testbed,
            String spec,
            String measure,
            String benchmark,
            String model,
            Double lowerBoundary,
            Double upperBoundary,
            Integer maxSamples,
            Integer maxDays,
            Integer minSamples) {}

    /** A list of thresholds. */
    record ThresholdList(List<ThresholdView> thresholds) {}

    ThresholdRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post(
                "/v0/projects/{project}/thresholds",
                this::create,
                RouteAccess.onProject(Role.MAINTAINER).audited("threshold.created"));
        config.routes.get("/v0/projects/{project}/thresholds", this::list, RouteAccess.onProject(Role.VIEWER));
        config.routes.get(
                "/v0/projects/{project}/thresholds/{threshold}", this::get, RouteAccess.onProject(Role.VIEWER));
        config.routes.put(
                "/v0/projects/{project}/thresholds/{threshold}",
                this::replace,
                RouteAccess.onProject(Role.MAINTAINER).audited("threshold.updated"));
        config.routes.delete(
                "/v0/projects/{project}/thresholds/{threshold}",
                this::delete,
                RouteAccess.onProject(Role.MAINTAINER).audited("threshold.deleted"));
    }

    private void create(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        ThresholdRule rule = rule(project, api.body(ctx, ThresholdBody.class));
        Json.write(ctx, 201, view(project, api.store().alerts().thresholds().create(project.id(), rule, api.now())));
    }

    private void list(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        Json.write(
                ctx,
                200,
                new ThresholdList(api.store().alerts().thresholds().list(project.id()).stream()
                        .map(t -> view(project, t))
                        .toList()));
    }

    private void get(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("threshold");
        Json.write(
                ctx,
                200,
                view(
                        project,
                        api.store()
                                .alerts()
                                .thresholds()
                                .find(project.id(), ref)
                                .orElseThrow(() -> notFound(ref))));
    }

    private void replace(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("threshold");
        if (api.store().alerts().thresholds().find(project.id(), ref).isEmpty()) throw notFound(ref);
        ThresholdRule rule = rule(project, api.body(ctx, ThresholdBody.class));
        Threshold t = api.store()
                .alerts()
                .thresholds()
                .update(project.id(), ref, rule, api.now())
                .orElseThrow(() -> notFound(ref));
        Json.write(ctx, 200, view(project, t));
    }

    private void delete(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("threshold");
        if (!api.store().alerts().thresholds().delete(project.id(), ref, api.now())) throw notFound(ref);
        ctx.status(204);
    }

    private ThresholdRule rule(Project project, ThresholdBody b) {
        String branch = b.branch() == null ? null : RunValidator.label("branch", b.branch(), null);
        String testbed = RunValidator.label("testbed", Fields.require("testbed", b.testbed()), null);
        String measure = Fields.require("measure", b.measure());
        Fields.require("model", b.model());
        if (!MEASURE.matcher(measure).matches())
            throw ApiException.invalidField("measure", "measure must be a measure's slug such as latency");
        Set<String> known = new TreeSet<>(BUILT_IN_MEASURES);
        known.addAll(api.store().alerts().thresholds().measuresSeen(project.id()));
        if (!known.contains(measure)) {
            throw ApiException.invalidField(
                    "measure", "unknown measure '" + measure + "': the project knows " + String.join(", ", known));
        }
        String benchmark = b.benchmark() == null ? null : RunValidator.label("benchmark", b.benchmark(), null);
        Long specId = null;
        if (b.spec() != null) {
            ResourceId id = Fields.resourceId("spec", b.spec());
            specId = api.store()
                    .specs()
                    .findSpec(id)
                    .map(Spec::id)
                    .orElseThrow(() -> ApiException.invalidField("spec", "no spec '" + b.spec() + "'"));
        }
        try {
            return ThresholdRules.check(new ThresholdRule(
                    branch,
                    testbed,
                    specId,
                    measure,
                    benchmark,
                    b.model(),
                    b.lowerBoundary(),
                    b.upperBoundary(),
                    b.maxSamples(),
                    b.maxDays(),
                    b.minSamples() == null ? -1 : b.minSamples()));
        } catch (InvalidThreshold e) {
            throw ApiException.invalidField(e.field(), e.getMessage());
        }
    }

    private ThresholdView view(Project project, Threshold t) {
        String spec = t.rule().specId() == null
                ? null
                : api.store()
                        .specs()
                        .findSpec(t.rule().specId())
                        .map(s -> s.slug().value())
                        .orElse(null);
        return ThresholdView.of(t, project.uuid(), spec);
    }

    private static ApiException notFound(String ref) {
        return ApiException.notFound("threshold_not_found", "no threshold '" + ref + "' in this project");
    }
}

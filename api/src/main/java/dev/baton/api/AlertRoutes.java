package dev.baton.api;

import dev.baton.store.Alert;
import dev.baton.store.AlertFilter;
import dev.baton.store.HistoryQuery;
import dev.baton.store.MetricPoint;
import dev.baton.store.Project;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.util.List;

/**
 * A project's alerts and its metrics' history with their boundaries (docs/alerts.md):
 * {@code /v0/projects/{project}/alerts} (list, filtered by status, branch, benchmark, report;
 * one; dismiss and reopen) and {@code /v0/projects/{project}/metrics} (one benchmark and
 * measure's history, newest first). Pages are cut by a cursor: {@code before} is the previous
 * page's {@code next}.
 */
final class AlertRoutes implements RouteModule {
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 500;

    private final ApiContext api;
    private final Lookups find;

    /** A page of alerts; {@code next} is the {@code before} of the next page, null on the last. */
    record AlertPage(List<AlertView> alerts, Long next) {}

    /** A page of a metric's history, newest first. */
    record MetricPage(List<MetricView> metrics, Long next) {}

    AlertRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get("/v0/projects/{project}/alerts", this::list);
        config.routes.get("/v0/projects/{project}/alerts/{alert}", this::get);
        config.routes.post("/v0/projects/{project}/alerts/{alert}/dismiss", ctx -> setStatus(ctx, Alert.DISMISSED));
        config.routes.post("/v0/projects/{project}/alerts/{alert}/reopen", ctx -> setStatus(ctx, Alert.ACTIVE));
        config.routes.get("/v0/projects/{project}/metrics", this::history);
    }

    private void list(Context ctx) {
        String status = ctx.queryParam("status");
        if (status != null && !status.equals(Alert.ACTIVE) && !status.equals(Alert.DISMISSED)) {
            throw new ApiException(400, "invalid_parameter", "status must be active or dismissed", "status");
        }
        int limit = Fields.intParam("limit", ctx.queryParam("limit"), DEFAULT_LIMIT, 1, MAX_LIMIT);
        Long before = cursor(ctx);
        Project project = find.project(ctx.pathParam("project"));
        List<Alert> alerts = api.store()
                .alerts()
                .alerts(new AlertFilter(
                        project.id(),
                        status,
                        ctx.queryParam("branch"),
                        ctx.queryParam("benchmark"),
                        ctx.queryParam("report"),
                        before,
                        limit));
        Long next = alerts.size() == limit ? alerts.getLast().id() : null;
        Json.write(ctx, 200, new AlertPage(alerts.stream().map(AlertView::of).toList(), next));
    }

    private void get(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("alert");
        Json.write(
                ctx,
                200,
                AlertView.of(api.store().alerts().findAlert(project.id(), ref).orElseThrow(() -> notFound(ref))));
    }

    private void setStatus(Context ctx, String status) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("alert");
        Alert a = api.store()
                .alerts()
                .setAlertStatus(project.id(), ref, status, api.now())
                .orElseThrow(() -> notFound(ref));
        Json.write(ctx, 200, AlertView.of(a));
    }

    private void history(Context ctx) {
        String benchmark = ctx.queryParam("benchmark");
        String measure = ctx.queryParam("measure");
        if (benchmark == null) throw new ApiException(400, "invalid_parameter", "benchmark is required", "benchmark");
        if (measure == null) throw new ApiException(400, "invalid_parameter", "measure is required", "measure");
        int limit = Fields.intParam("limit", ctx.queryParam("limit"), DEFAULT_LIMIT, 1, MAX_LIMIT);
        Long before = cursor(ctx);
        Project project = find.project(ctx.pathParam("project"));
        List<MetricPoint> points = api.store()
                .alerts()
                .history(new HistoryQuery(
                        project.id(),
                        benchmark,
                        measure,
                        ctx.queryParam("branch"),
                        ctx.queryParam("testbed"),
                        before,
                        limit));
        Long next = points.size() == limit ? points.getLast().id() : null;
        Json.write(ctx, 200, new MetricPage(points.stream().map(MetricView::of).toList(), next));
    }

    static Long cursor(Context ctx) {
        String raw = ctx.queryParam("before");
        if (raw == null) return null;
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new ApiException(400, "invalid_parameter", "before must be the next of a previous page", "before");
        }
    }

    private static ApiException notFound(String ref) {
        return ApiException.notFound("alert_not_found", "no alert '" + ref + "' in this project");
    }
}

package dev.baton.api;

import dev.baton.store.ChangePointFilter;
import dev.baton.store.Project;
import dev.baton.store.Role;
import dev.baton.store.StoredChangePoint;
import dev.baton.web.auth.RouteAccess;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.util.List;

/**
 * Stored change points (docs/alerts.md, "Change points"; decision 0056): {@code GET
 * /v0/projects/{project}/change-points} (newest first; by branch, testbed, benchmark, measure,
 * state, group) and one change point. They are triaged through their alert or its group.
 */
final class ChangePointRoutes implements RouteModule {
    private final ApiContext api;
    private final Lookups find;

    /** A page of change points; {@code next} is the {@code before} of the next page, null on the last. */
    record Page(List<ChangePointView> changePoints, Long next) {}

    ChangePointRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get("/v0/projects/{project}/change-points", this::list, RouteAccess.onProject(Role.VIEWER));
        config.routes.get(
                "/v0/projects/{project}/change-points/{change_point}", this::get, RouteAccess.onProject(Role.VIEWER));
    }

    private void list(Context ctx) {
        String state = ctx.queryParam("state");
        if (state != null && !StoredChangePoint.STATES.contains(state)) {
            throw new ApiException(
                    400,
                    "invalid_parameter",
                    "state must be one of " + String.join(", ", StoredChangePoint.STATES),
                    "state");
        }
        int limit =
                Fields.intParam("limit", ctx.queryParam("limit"), AlertRoutes.DEFAULT_LIMIT, 1, AlertRoutes.MAX_LIMIT);
        Long before = AlertRoutes.cursor(ctx);
        Project project = find.project(ctx.pathParam("project"));
        List<StoredChangePoint> found = api.store()
                .alerts()
                .changePoints()
                .changePoints(new ChangePointFilter(
                        project.id(),
                        ctx.queryParam("branch"),
                        ctx.queryParam("testbed"),
                        ctx.queryParam("benchmark"),
                        ctx.queryParam("measure"),
                        state,
                        ctx.queryParam("group"),
                        before,
                        limit));
        Long next = found.size() == limit ? found.getLast().id() : null;
        Json.write(ctx, 200, new Page(found.stream().map(ChangePointView::of).toList(), next));
    }

    private void get(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("change_point");
        StoredChangePoint c = api.store()
                .alerts()
                .changePoints()
                .findChangePoint(project.id(), ref)
                .orElseThrow(() -> ApiException.notFound(
                        "change_point_not_found", "no change point '" + ref + "' in this project"));
        Json.write(ctx, 200, ChangePointView.of(c));
    }
}

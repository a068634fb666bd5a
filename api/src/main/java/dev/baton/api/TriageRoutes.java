package dev.baton.api;

import dev.baton.store.Alert;
import dev.baton.store.AlertGroup;
import dev.baton.store.AlertGroupFilter;
import dev.baton.store.Project;
import dev.baton.store.Role;
import dev.baton.store.Triage;
import dev.baton.web.auth.RouteAccess;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Triage of alerts and their groups (docs/alerts.md, "Triage and groups"; decision 0049; issue
 * 44): {@code GET /v0/projects/{project}/alert-groups} (newest first, each with its alerts), one
 * group, {@code POST …/alert-groups/{group}/triage} (every alert of the group) and {@code POST
 * …/alerts/{alert}/triage} (one alert). Who set the triage is the caller as the audit log names it.
 */
final class TriageRoutes implements RouteModule {
    /** A note is a sentence or a paragraph, not a document. */
    static final int MAX_NOTE = 2_000;

    private static final Pattern HASH = Pattern.compile("[0-9a-f]{7,64}");

    private final ApiContext api;
    private final Lookups find;

    /** A page of groups; {@code next} is the {@code before} of the next page, null on the last. */
    record GroupPage(List<AlertGroupView> groups, Long next) {}

    /** The body of a triage: the state, a note, and for a culprit the commit. */
    record TriageBody(String state, String note, String commit) {}

    TriageRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get("/v0/projects/{project}/alert-groups", this::list, RouteAccess.onProject(Role.VIEWER));
        config.routes.get("/v0/projects/{project}/alert-groups/{group}", this::get, RouteAccess.onProject(Role.VIEWER));
        config.routes.post(
                "/v0/projects/{project}/alert-groups/{group}/triage",
                this::triageGroup,
                AlertRoutes.TRIAGE.audited("alert_group.triaged"));
        config.routes.post(
                "/v0/projects/{project}/alerts/{alert}/triage",
                this::triageAlert,
                AlertRoutes.TRIAGE.audited("alert.triaged"));
    }

    private void list(Context ctx) {
        String triage = ctx.queryParam("triage");
        if (triage != null && !Triage.STATES.contains(triage)) {
            throw new ApiException(
                    400, "invalid_parameter", "triage must be one of " + String.join(", ", Triage.STATES), "triage");
        }
        int limit =
                Fields.intParam("limit", ctx.queryParam("limit"), AlertRoutes.DEFAULT_LIMIT, 1, AlertRoutes.MAX_LIMIT);
        Long before = AlertRoutes.cursor(ctx);
        Project project = find.project(ctx.pathParam("project"));
        List<AlertGroup> groups = api.store()
                .alerts()
                .groups()
                .list(new AlertGroupFilter(
                        project.id(), triage, ctx.queryParam("branch"), ctx.queryParam("report"), before, limit));
        Long next = groups.size() == limit ? groups.getLast().id() : null;
        List<dev.baton.store.StoredChangePoint> changePoints = api.store()
                .alerts()
                .changePoints()
                .ofGroups(groups.stream().map(AlertGroup::id).toList());
        Json.write(
                ctx,
                200,
                new GroupPage(
                        groups.stream()
                                .map(g -> AlertGroupView.of(g, changePoints))
                                .toList(),
                        next));
    }

    private void get(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("group");
        AlertGroup g = api.store().alerts().groups().find(project.id(), ref).orElseThrow(() -> groupNotFound(ref));
        Json.write(ctx, 200, view(g));
    }

    private void triageGroup(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("group");
        Triage t = triage(ctx);
        AlertGroup g =
                api.store().alerts().groups().triage(project.id(), ref, t).orElseThrow(() -> groupNotFound(ref));
        Json.write(ctx, 200, view(g));
    }

    private void triageAlert(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("alert");
        Triage t = triage(ctx);
        Alert a = api.store()
                .alerts()
                .groups()
                .triageAlert(project.id(), ref, t)
                .orElseThrow(() -> ApiException.notFound("alert_not_found", "no alert '" + ref + "' in this project"));
        Json.write(ctx, 200, AlertView.of(a));
    }

    /** The body checked: a known state, a bounded note, a commit exactly when the state is culprit. */
    private Triage triage(Context ctx) {
        TriageBody b = api.body(ctx, TriageBody.class);
        String state = Fields.require("state", b.state());
        if (!Triage.STATES.contains(state))
            throw ApiException.invalidField("state", "state must be one of " + String.join(", ", Triage.STATES));
        String note = b.note() == null || b.note().isBlank() ? null : b.note().strip();
        if (note != null && note.length() > MAX_NOTE)
            throw ApiException.invalidField("note", "note must be at most " + MAX_NOTE + " characters");
        String commit = null;
        if (state.equals(Triage.CULPRIT)) {
            commit = Fields.require("commit", b.commit()).toLowerCase(Locale.ROOT);
            if (!HASH.matcher(commit).matches())
                throw ApiException.invalidField(
                        "commit", "commit must be a git commit hash: 7 to 64 hexadecimal digits");
        } else if (b.commit() != null) {
            throw ApiException.invalidField("commit", "only a culprit names a commit");
        }
        boolean untriaged = state.equals(Triage.UNTRIAGED);
        return new Triage(
                state,
                note,
                commit,
                untriaged ? null : api.access().authenticate(ctx).actor(),
                untriaged ? null : api.now());
    }

    private AlertGroupView view(AlertGroup g) {
        return AlertGroupView.of(g, api.store().alerts().changePoints().ofGroups(List.of(g.id())));
    }

    private static ApiException groupNotFound(String ref) {
        return ApiException.notFound("alert_group_not_found", "no alert group '" + ref + "' in this project");
    }
}

package dev.baton.api;

import dev.baton.api.AccessViews.MemberView;
import dev.baton.protocol.id.ResourceId;
import dev.baton.store.Role;
import dev.baton.store.User;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

/**
 * Members of organizations and projects: a user's role there. Owners (and the admin) manage them;
 * AccessControl checks that before these handlers run.
 */
public final class MemberRoutes implements RouteModule {
    private final ApiContext api;
    private final Lookups find;

    public MemberRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    record SetMember(String role) {}

    /** The organization or project of a request, as the ids a membership names. */
    private record Scope(Long organizationId, Long projectId) {}

    @Override
    public void addRoutes(JavalinConfig config) {
        for (String kind : new String[] {"organizations/{organization}", "projects/{project}"}) {
            config.routes.get("/v0/" + kind + "/members", this::list);
            config.routes.put("/v0/" + kind + "/members/{user}", this::set);
            config.routes.delete("/v0/" + kind + "/members/{user}", this::remove);
        }
    }

    private Scope scope(Context ctx) {
        if (ctx.pathParamMap().containsKey("project"))
            return new Scope(null, find.project(ctx.pathParam("project")).id());
        return new Scope(find.organization(ctx.pathParam("organization")).id(), null);
    }

    private User user(Context ctx) {
        String ref = ctx.pathParam("user");
        return api.store()
                .access()
                .findUser(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("user_not_found", "no user '" + ref + "'"));
    }

    private void list(Context ctx) {
        Scope s = scope(ctx);
        Json.write(
                ctx,
                200,
                api.store().access().members(s.organizationId(), s.projectId()).stream()
                        .map(m -> MemberView.of(api.store(), m))
                        .toList());
    }

    private void set(Context ctx) {
        SetMember body = api.body(ctx, SetMember.class);
        Role role = Fields.parse("role", Fields.require("role", body.role()), Role::parse);
        Scope s = scope(ctx);
        User user = user(ctx);
        Json.write(
                ctx,
                200,
                MemberView.of(
                        api.store(),
                        api.store()
                                .access()
                                .setMembership(user.id(), s.organizationId(), s.projectId(), role, api.now())));
    }

    private void remove(Context ctx) {
        Scope s = scope(ctx);
        User user = user(ctx);
        if (!api.store().access().removeMembership(user.id(), s.organizationId(), s.projectId())) {
            throw ApiException.notFound("member_not_found", "user '" + user.name() + "' has no role here");
        }
        ctx.status(204);
    }
}

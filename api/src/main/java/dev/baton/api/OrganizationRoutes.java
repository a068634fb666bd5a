package dev.baton.api;

import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.Principal;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.util.HashMap;
import java.util.Map;

/** Organizations (with the plan tier that sets job priority) and their projects; who may call what: auth.RouteTable. */
public final class OrganizationRoutes implements RouteModule {
    private final ApiContext api;
    private final Lookups find;

    public OrganizationRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    record CreateOrganization(String name, String slug, String plan) {}

    record UpdateOrganization(String plan) {}

    record CreateProject(String name, String slug, String organization) {}

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post("/v0/organizations", this::createOrganization);
        config.routes.get("/v0/organizations", this::listOrganizations);
        config.routes.get("/v0/organizations/{organization}", this::getOrganization);
        config.routes.patch("/v0/organizations/{organization}", this::updateOrganization);
        config.routes.post("/v0/projects", this::createProject);
        config.routes.get("/v0/projects", this::listProjects);
        config.routes.get("/v0/projects/{project}", this::getProject);
    }

    private void createOrganization(Context ctx) {
        CreateOrganization body = api.body(ctx, CreateOrganization.class);
        String name = Fields.name("name", Fields.require("name", body.name()));
        Slug slug = Fields.slug("slug", body.slug());
        PlanTier plan = body.plan() == null ? PlanTier.FREE : Fields.parse("plan", body.plan(), PlanTier::parse);
        Organization org =
                Slugs.insert(name, slug, s -> api.store().organizations().createOrganization(name, s, plan, api.now()));
        Json.write(ctx, 201, OrganizationView.of(org));
    }

    /** The organizations the caller has a role on (all of them for the admin token). */
    private void listOrganizations(Context ctx) {
        Principal who = api.access().authenticate(ctx);
        Json.write(
                ctx,
                200,
                api.store().organizations().listOrganizations().stream()
                        .filter(o -> AccessControl.roleOn(who, o).isPresent())
                        .map(OrganizationView::of)
                        .toList());
    }

    private void getOrganization(Context ctx) {
        Json.write(ctx, 200, OrganizationView.of(find.organization(ctx.pathParam("organization"))));
    }

    private void updateOrganization(Context ctx) {
        UpdateOrganization body = api.body(ctx, UpdateOrganization.class);
        PlanTier plan = Fields.parse("plan", Fields.require("plan", body.plan()), PlanTier::parse);
        Organization org = find.organization(ctx.pathParam("organization"));
        Json.write(ctx, 200, OrganizationView.of(api.store().organizations().setPlan(org.id(), plan, api.now())));
    }

    private void createProject(Context ctx) {
        CreateProject body = api.body(ctx, CreateProject.class);
        String name = Fields.name("name", Fields.require("name", body.name()));
        Slug slug = Fields.slug("slug", body.slug());
        String ref = Fields.require("organization", body.organization());
        Fields.resourceId("organization", ref);
        Organization org = api.store()
                .organizations()
                .findOrganization(ResourceId.of(ref))
                .orElseThrow(() -> new ApiException(
                        404, "organization_not_found", "no organization '" + ref + "'", "organization"));
        Project project =
                Slugs.insert(name, slug, s -> api.store().organizations().createProject(org.id(), name, s, api.now()));
        Json.write(ctx, 201, ProjectView.of(project, org.uuid()));
    }

    private void listProjects(Context ctx) {
        Map<Long, Organization> orgs = new HashMap<>();
        for (Organization o : api.store().organizations().listOrganizations()) orgs.put(o.id(), o);
        Principal who = api.access().authenticate(ctx);
        Json.write(
                ctx,
                200,
                api.store().organizations().listProjects().stream()
                        .filter(p -> AccessControl.roleOn(who, p).isPresent())
                        .map(p -> ProjectView.of(
                                p,
                                orgs.containsKey(p.organizationId())
                                        ? orgs.get(p.organizationId()).uuid()
                                        : null))
                        .toList());
    }

    private void getProject(Context ctx) {
        Project p = find.project(ctx.pathParam("project"));
        Json.write(
                ctx,
                200,
                ProjectView.of(
                        p,
                        api.store()
                                .organizations()
                                .findOrganization(p.organizationId())
                                .map(Organization::uuid)
                                .orElse(null)));
    }
}

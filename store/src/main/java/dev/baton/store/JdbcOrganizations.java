package dev.baton.store;

import static dev.baton.store.Rows.micros;
import static dev.baton.store.StoreContext.notFound;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Slug;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** Organizations and projects: the store's tenants. */
final class JdbcOrganizations implements Organizations {
    private final StoreContext context;
    /**
     * A project's uuid by its id, read on every hand-out, completion and processing (issue 13).
     * Both never change and no project row is ever deleted, so an id never comes to mean another
     * project and the entries need no invalidation, on any node. A project delete, if one is ever
     * added, must remove its entry.
     */
    private final Map<Long, ProjectUuid> projectUuids = new java.util.concurrent.ConcurrentHashMap<>();

    JdbcOrganizations(StoreContext context) {
        this.context = context;
    }

    @Override
    public Organization createOrganization(String name, Slug slug, PlanTier plan, Instant now) {
        return context.unique(
                "organization slug '" + slug + "' is taken",
                () -> context.write(h -> {
                    long id = h.createQuery("INSERT INTO organization (uuid, name, slug, plan, created, modified)"
                                    + " VALUES (:uuid, :name, :slug, :plan, :now, :now) RETURNING id")
                            .bind("uuid", UUID.randomUUID().toString())
                            .bind("name", name)
                            .bind("slug", slug.value())
                            .bind("plan", plan.priority())
                            .bind("now", micros(now))
                            .mapTo(Long.class)
                            .one();
                    return context.organization(h, id).orElseThrow();
                }));
    }

    @Override
    public Optional<Organization> findOrganization(ResourceId id) {
        return context.readPlain(c -> context.byResource(c, "organization", Rows.ORGANIZATION, id, Rows::organization));
    }

    @Override
    public Optional<Organization> findOrganization(long id) {
        return context.readPlain(c -> context.byId(c, "organization", Rows.ORGANIZATION, id, Rows::organization));
    }

    @Override
    public List<Organization> listOrganizations() {
        return context.read(h -> h.createQuery("SELECT " + Rows.ORGANIZATION + " FROM organization ORDER BY id")
                .map(Rows.ORGANIZATION_MAPPER)
                .list());
    }

    @Override
    public Organization setPlan(long organizationId, PlanTier plan, Instant now) {
        return context.write(h -> {
            int rows = h.createUpdate("UPDATE organization SET plan = :plan, modified = :now WHERE id = :id")
                    .bind("plan", plan.priority())
                    .bind("now", micros(now))
                    .bind("id", organizationId)
                    .execute();
            if (rows == 0) throw notFound("organization", organizationId);
            return context.organization(h, organizationId).orElseThrow();
        });
    }

    @Override
    public Project createProject(long organizationId, String name, Slug slug, Instant now) {
        return context.unique(
                "project slug '" + slug + "' is taken",
                () -> context.write(h -> {
                    if (context.organization(h, organizationId).isEmpty())
                        throw notFound("organization", organizationId);
                    long id = h.createQuery("INSERT INTO project (uuid, organization_id, name, slug, created, modified)"
                                    + " VALUES (:uuid, :org, :name, :slug, :now, :now) RETURNING id")
                            .bind("uuid", UUID.randomUUID().toString())
                            .bind("org", organizationId)
                            .bind("name", name)
                            .bind("slug", slug.value())
                            .bind("now", micros(now))
                            .mapTo(Long.class)
                            .one();
                    return context.project(h, id).orElseThrow();
                }));
    }

    @Override
    public Optional<Project> findProject(ResourceId id) {
        return context.readPlain(c -> context.byResource(c, "project", Rows.PROJECT, id, Rows::project));
    }

    @Override
    public Optional<Project> findProject(long id) {
        return context.readPlain(c -> context.byId(c, "project", Rows.PROJECT, id, Rows::project));
    }

    @Override
    public Optional<ProjectUuid> projectUuid(long id) {
        ProjectUuid cached = projectUuids.get(id);
        if (cached != null) return Optional.of(cached);
        Optional<ProjectUuid> read = findProject(id).map(Project::uuid);
        read.ifPresent(uuid -> projectUuids.put(id, uuid));
        return read;
    }

    @Override
    public List<Project> listProjects() {
        return context.read(h -> h.createQuery("SELECT " + Rows.PROJECT + " FROM project ORDER BY id")
                .map(Rows.PROJECT_MAPPER)
                .list());
    }
}

package dev.baton.store;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Slug;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The store's part for organizations (each with its plan tier) and their projects.
 */
public interface Organizations {
    Organization createOrganization(String name, Slug slug, PlanTier plan, Instant now);

    Optional<Organization> findOrganization(ResourceId id);

    Optional<Organization> findOrganization(long id);

    List<Organization> listOrganizations();

    Organization setPlan(long organizationId, PlanTier plan, Instant now);

    Project createProject(long organizationId, String name, Slug slug, Instant now);

    Optional<Project> findProject(ResourceId id);

    Optional<Project> findProject(long id);

    /** The project's uuid (never changes for an id); served from memory after the first read. */
    Optional<ProjectUuid> projectUuid(long id);

    List<Project> listProjects();
}

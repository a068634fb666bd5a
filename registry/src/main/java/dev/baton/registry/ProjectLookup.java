package dev.baton.registry;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ResourceId;
import java.util.Optional;

/**
 * Resolves the first component of a repository name (project UUID or slug) to a project.
 * Wired to the store: {@code id -> store.findProject(id).map(Project::uuid)}.
 */
@FunctionalInterface
public interface ProjectLookup {
    Optional<ProjectUuid> find(ResourceId id);
}

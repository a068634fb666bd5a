package dev.baton.api;

import dev.baton.protocol.id.OrganizationUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.store.Project;
import java.time.Instant;

public record ProjectView(
        ProjectUuid uuid, OrganizationUuid organization, String name, String slug, Instant created, Instant modified) {
    static ProjectView of(Project p, OrganizationUuid organization) {
        return new ProjectView(p.uuid(), organization, p.name(), p.slug().value(), p.created(), p.modified());
    }
}

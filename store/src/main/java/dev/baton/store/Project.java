package dev.baton.store;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.value.Slug;
import java.time.Instant;

/** A project: owns reports, jobs, images and job output. */
public record Project(
        long id, ProjectUuid uuid, long organizationId, String name, Slug slug, Instant created, Instant modified) {}

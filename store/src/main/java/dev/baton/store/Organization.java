package dev.baton.store;

import dev.baton.protocol.id.OrganizationUuid;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Slug;
import java.time.Instant;

/** An organization owns projects; its plan tier sets the priority of the jobs it submits. */
public record Organization(
        long id, OrganizationUuid uuid, String name, Slug slug, PlanTier plan, Instant created, Instant modified) {}

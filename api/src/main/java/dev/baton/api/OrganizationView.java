package dev.baton.api;

import dev.baton.protocol.id.OrganizationUuid;
import dev.baton.protocol.job.PlanTier;
import dev.baton.store.Organization;
import java.time.Instant;

public record OrganizationView(
        OrganizationUuid uuid, String name, String slug, PlanTier plan, Instant created, Instant modified) {
    static OrganizationView of(Organization o) {
        return new OrganizationView(o.uuid(), o.name(), o.slug().value(), o.plan(), o.created(), o.modified());
    }
}

package dev.baton.store;

import java.time.Instant;

/**
 * A user's role on an organization (and every project of it) or on one project: exactly one of
 * {@code organizationId} and {@code projectId} is set.
 */
public record Membership(long userId, Long organizationId, Long projectId, Role role, Instant created) {
    public Membership {
        if ((organizationId == null) == (projectId == null))
            throw new IllegalArgumentException("a membership is on an organization or a project");
    }
}

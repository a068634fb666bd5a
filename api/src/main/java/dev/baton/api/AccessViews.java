package dev.baton.api;

import dev.baton.protocol.id.OrganizationUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.TokenUuid;
import dev.baton.protocol.id.UserUuid;
import dev.baton.store.AuditEvent;
import dev.baton.store.Membership;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Store;
import dev.baton.store.StoredToken;
import dev.baton.store.User;
import java.time.Instant;
import java.util.List;

/** The JSON shapes of users, memberships, tokens and audit events (docs/api.md, "Access"). A token's secret appears only in {@link CreatedToken}. */
final class AccessViews {
    private AccessViews() {}

    record UserView(UserUuid uuid, String name, Instant created) {
        static UserView of(User u) {
            return new UserView(u.uuid(), u.name(), u.created());
        }
    }

    /** Where a role or a token applies: an organization or a project, by UUID and slug. */
    record ScopeView(OrganizationUuid organization, ProjectUuid project, String slug) {
        static ScopeView of(Store store, Long organizationId, Long projectId) {
            if (projectId != null) {
                Project p = store.organizations().findProject(projectId).orElseThrow();
                return new ScopeView(null, p.uuid(), p.slug().value());
            }
            Organization o =
                    store.organizations().findOrganization(organizationId).orElseThrow();
            return new ScopeView(o.uuid(), null, o.slug().value());
        }
    }

    record MemberView(UserView user, ScopeView scope, String role, Instant created) {
        static MemberView of(Store store, Membership m) {
            return new MemberView(
                    UserView.of(store.access().findUser(m.userId()).orElseThrow()),
                    ScopeView.of(store, m.organizationId(), m.projectId()),
                    m.role().wireName(),
                    m.created());
        }
    }

    /** {@code status}: active, expired or revoked at the time of the answer. */
    record TokenView(
            TokenUuid uuid,
            String name,
            UserView user,
            ScopeView scope,
            String role,
            String status,
            Instant created,
            Instant expires,
            Instant lastUsed,
            Instant revoked) {
        static TokenView of(Store store, StoredToken t, Instant now) {
            String status = t.revoked() != null ? "revoked" : t.activeAt(now) ? "active" : "expired";
            return new TokenView(
                    t.uuid(),
                    t.name(),
                    UserView.of(store.access().findUser(t.userId()).orElseThrow()),
                    ScopeView.of(store, t.organizationId(), t.projectId()),
                    t.role().wireName(),
                    status,
                    t.created(),
                    t.expires(),
                    t.lastUsed(),
                    t.revoked());
        }
    }

    /** The one answer that carries the secret: shown once, never stored. */
    record CreatedToken(TokenView token, String secret) {}

    /** Who the caller is: the admin token, or a user's token with its scope and the roles it has. */
    record WhoAmI(String actor, boolean admin, TokenView token, List<MemberView> roles) {}

    record AuditEventView(
            long id,
            Instant at,
            String actor,
            String token,
            String action,
            String target,
            String detail,
            String address) {
        static AuditEventView of(AuditEvent e) {
            return new AuditEventView(
                    e.id(), e.at(), e.actor(), e.token(), e.action(), e.target(), e.detail(), e.address());
        }
    }

    /** A page of events, newest first; {@code next_before} pages on (absent on the last page). */
    record AuditPage(List<AuditEventView> events, Long nextBefore) {}
}

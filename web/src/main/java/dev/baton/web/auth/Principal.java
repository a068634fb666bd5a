package dev.baton.web.auth;

import dev.baton.store.Membership;
import dev.baton.store.Project;
import dev.baton.store.Role;
import dev.baton.store.StoredToken;
import dev.baton.store.User;
import java.util.List;
import java.util.Optional;

/**
 * Who is calling, as {@link Authenticator} found it: the admin token, or a user's API token with
 * the user's memberships as they were at this request.
 */
public sealed interface Principal {
    /** How the audit log names this caller. */
    String actor();

    /** The admin token: every route, server-wide actions included. */
    record Admin() implements Principal {
        @Override
        public String actor() {
            return "admin";
        }
    }

    /**
     * A user's API token. What it may do on a project or organization is the lesser of the
     * token's role and the user's role there (a project inherits its organization's roles), and
     * nothing outside the token's scope: removing a member narrows its tokens at once.
     */
    record TokenHolder(User user, StoredToken token, List<Membership> memberships) implements Principal {
        public TokenHolder {
            memberships = List.copyOf(memberships);
        }

        @Override
        public String actor() {
            return "user:" + user.name();
        }

        /** The role on {@code project}, or empty when the project is outside this token's reach. */
        public Optional<Role> roleOn(Project project) {
            boolean inScope = token.projectId() != null
                    ? token.projectId() == project.id()
                    : token.organizationId() == project.organizationId();
            if (!inScope) return Optional.empty();
            Role member = null;
            for (Membership m : memberships) {
                boolean here = m.projectId() != null
                        ? m.projectId() == project.id()
                        : m.organizationId() == project.organizationId();
                if (here && (member == null || m.role().includes(member))) member = m.role();
            }
            return member == null ? Optional.empty() : Optional.of(Role.lesser(member, token.role()));
        }

        /** The role on organization {@code organizationId}: only tokens scoped to that organization have one. */
        public Optional<Role> roleOnOrganization(long organizationId) {
            if (token.organizationId() == null || token.organizationId() != organizationId) return Optional.empty();
            return memberships.stream()
                    .filter(m -> m.organizationId() != null && m.organizationId() == organizationId)
                    .map(m -> Role.lesser(m.role(), token.role()))
                    .findFirst();
        }
    }
}

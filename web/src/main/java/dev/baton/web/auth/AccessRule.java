package dev.baton.web.auth;

import dev.baton.store.Role;

/**
 * Who may call one route (a row of the role table in docs/api.md). {@link AccessControl} enforces
 * it before the route's handler runs; the kinds whose scope is in the body or the resource are
 * finished by the handler through the same {@link AccessControl}.
 */
public sealed interface AccessRule {
    /** The role column of docs/api.md for this rule. */
    String documented();

    /** No credentials needed. */
    record Public() implements AccessRule {
        public String documented() {
            return "public";
        }
    }

    /** Server-wide: the admin token only. */
    record AdminOnly() implements AccessRule {
        public String documented() {
            return "admin";
        }
    }

    /** Any valid credentials; what the caller sees is narrowed by the handler (lists, whoami). */
    record Authenticated() implements AccessRule {
        public String documented() {
            return "any";
        }
    }

    /** At least {@code role} on the project named by the {@code {project}} path parameter. */
    record OnProject(Role role) implements AccessRule {
        public String documented() {
            return role.wireName();
        }
    }

    /** At least {@code role} on the organization named by the {@code {organization}} path parameter. */
    record OnOrganization(Role role) implements AccessRule {
        public String documented() {
            return role.wireName();
        }
    }

    /** At least {@code role} on a project or organization the handler reads from the body or the resource. */
    record InHandler(Role role) implements AccessRule {
        public String documented() {
            return role.wireName();
        }
    }
}

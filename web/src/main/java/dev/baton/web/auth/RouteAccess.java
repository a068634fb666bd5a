package dev.baton.web.auth;

import dev.baton.store.Role;
import io.javalin.router.Endpoint;
import io.javalin.security.Roles;
import io.javalin.security.RouteRole;

/**
 * Who may call a route, and the audit action its success records (null: not audited), declared
 * where the route is registered: {@code config.routes.post(path, handler, RouteAccess.admin().audited("spec.created"))}.
 * {@link AccessControl} reads it from the matched endpoint before the handler runs; a {@code /v0}
 * route registered without one is refused to everyone but the admin token. docs/api.md's role table
 * is checked against these declarations by AccessContract.
 */
public record RouteAccess(AccessRule rule, String auditAction) implements RouteRole {
    private static final RouteAccess ADMIN_ONLY = new RouteAccess(new AccessRule.AdminOnly(), null);

    /** No credentials needed. */
    public static RouteAccess open() {
        return new RouteAccess(new AccessRule.Public(), null);
    }

    /** Any valid credentials; the handler narrows what the caller sees. */
    public static RouteAccess signedIn() {
        return new RouteAccess(new AccessRule.Authenticated(), null);
    }

    /** Server-wide: the admin token only. */
    public static RouteAccess admin() {
        return ADMIN_ONLY;
    }

    /** At least {@code role} on the project of the {@code {project}} path parameter. */
    public static RouteAccess onProject(Role role) {
        return new RouteAccess(new AccessRule.OnProject(role), null);
    }

    /** At least {@code role} on the organization of the {@code {organization}} path parameter. */
    public static RouteAccess onOrganization(Role role) {
        return new RouteAccess(new AccessRule.OnOrganization(role), null);
    }

    /** At least {@code role} on a project or organization the handler finds in the body or the resource. */
    public static RouteAccess inHandler(Role role) {
        return new RouteAccess(new AccessRule.InHandler(role), null);
    }

    /** The same access, recording {@code action} in the audit log when the route succeeds. */
    public RouteAccess audited(String action) {
        return new RouteAccess(rule, action);
    }

    /** What the endpoint was registered with; admin only for one registered without (fail closed). */
    public static RouteAccess of(Endpoint endpoint) {
        Roles roles = endpoint.metadata(Roles.class);
        if (roles != null) {
            for (RouteRole role : roles.getRoles()) {
                if (role instanceof RouteAccess access) return access;
            }
        }
        return ADMIN_ONLY;
    }

    /** Whether the endpoint was registered with an access declaration at all. */
    public static boolean declared(Endpoint endpoint) {
        Roles roles = endpoint.metadata(Roles.class);
        return roles != null && roles.getRoles().stream().anyMatch(RouteAccess.class::isInstance);
    }
}

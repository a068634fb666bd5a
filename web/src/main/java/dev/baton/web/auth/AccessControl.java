package dev.baton.web.auth;

import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Role;
import dev.baton.store.Store;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The one place where {@code /v0} access is decided. Before any matched {@code /v0} route runs,
 * the caller is authenticated ({@link Authenticator}) and the route's {@link RouteTable} rule is
 * applied; after a state-changing route succeeds, its audit action is recorded ({@link AuditLog}).
 * Handlers whose scope is in the body or the resource finish the check with {@link #requireProject}
 * and {@link #requireOrganization} on the request's {@link #authenticate} caller. A project or
 * organization outside the caller's reach is answered exactly as a missing one (404), so a token
 * learns nothing of others' existence.
 */
public final class AccessControl implements RouteModule {
    private static final String PRINCIPAL = "baton.principal";
    private static final String REAUTHENTICATE = "baton.reauthenticate";

    private final Authenticator authenticator;
    private final Store store;
    private final AuditLog audit;

    public AccessControl(Authenticator authenticator, Store store, AuditLog audit) {
        this.authenticator = authenticator;
        this.store = store;
        this.audit = audit;
    }

    /** The one entry point from a presented secret to a {@link Principal}, for doors that are not {@code /v0} (registry, OJS, console). */
    public Authenticator authenticator() {
        return authenticator;
    }

    /** The audit log, for doors that are not {@code /v0} that record their own actions (OJS worker directions). */
    public AuditLog audit() {
        return audit;
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.beforeMatched("/v0/*", this::before);
        config.routes.afterMatched("/v0/*", this::after);
    }

    private void before(Context ctx) {
        Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
        if (endpoint == null) return; // the runner channel's WebSocket: runner keys (ChannelRoutes)
        RouteTable.Entry entry = RouteTable.of(endpoint.method.name(), endpoint.path)
                .orElse(new RouteTable.Entry(new AccessRule.AdminOnly(), null)); // unlisted: fail closed
        if (entry.rule() instanceof AccessRule.Public) return;
        Principal principal = authenticate(ctx);
        if (principal instanceof Principal.Admin)
            return; // every route; no lookup on the admin's (and benchmarks') hot path
        switch (entry.rule()) {
            case AccessRule.Public p -> {}
            case AccessRule.Authenticated a -> {}
            case AccessRule.InHandler h -> {}
            case AccessRule.AdminOnly a -> {
                if (!(principal instanceof Principal.Admin)) {
                    throw new ApiException(403, "forbidden", "this is a server-wide action: it needs the admin token");
                }
            }
            // Decided before the handler looks at anything else in the request: a missing project and one
            // out of reach get the same 404 whatever else is wrong with the request (a query parameter, the body).
            case AccessRule.OnProject p -> {
                String ref = PathParams.of(endpoint.path, ctx.path()).get("project");
                reachableProject(principal, store.organizations().findProject(ResourceId.of(ref)), p.role(), ref, null);
            }
            case AccessRule.OnOrganization o -> {
                String ref = PathParams.of(endpoint.path, ctx.path()).get("organization");
                reachableOrganization(
                        principal, store.organizations().findOrganization(ResourceId.of(ref)), o.role(), ref, null);
            }
        }
    }

    private void after(Context ctx) {
        Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
        if (endpoint == null || ctx.statusCode() >= 300) return;
        Principal principal = ctx.attribute(PRINCIPAL);
        if (principal == null) return;
        RouteTable.of(endpoint.method.name(), endpoint.path)
                .map(RouteTable.Entry::auditAction)
                .ifPresent(action -> audit.record(principal, action, ctx.path(), AuditLog.detailOf(ctx), ctx.ip()));
    }

    /** The caller this request was authenticated as, if it was (recorded with what it started, e.g. a fleet roll). */
    public static Optional<Principal> caller(Context ctx) {
        return Optional.ofNullable(ctx.attribute(PRINCIPAL));
    }

    /** The caller of this request (authenticated once, then remembered on the request); 401 without valid credentials. */
    public Principal authenticate(Context ctx) {
        Principal known = ctx.attribute(PRINCIPAL);
        if (known != null) return known;
        String header = ctx.header("Authorization");
        Principal principal = authenticator.fromHeader(header).orElseThrow(() -> refusal(header));
        ctx.attribute(PRINCIPAL, principal);
        if (principal instanceof Principal.TokenHolder) reauthenticateWith(ctx, () -> authenticator.fromHeader(header));
        return principal;
    }

    /**
     * How a long answer (an event stream) finds its caller again as they are now: {@code again}
     * gives the principal with its current memberships, or empty once the token is revoked or expired.
     */
    public static void reauthenticateWith(Context ctx, Supplier<Optional<Principal>> again) {
        ctx.attribute(REAUTHENTICATE, again);
    }

    /** The request's way to find its caller again, or null when there is none to ask (the admin token, which cannot lose access). */
    public static Supplier<Optional<Principal>> reauthentication(Context ctx) {
        return ctx.attribute(REAUTHENTICATE);
    }

    private static ApiException refusal(String header) {
        Optional<String> token = BearerToken.of(header);
        if (token.isEmpty()) {
            return new ApiException(
                    401,
                    "unauthorized",
                    "missing 'Authorization: Bearer <token>' header (an API token or the admin token)");
        }
        // A runner key is a real credential, just not for this: say so rather than "invalid".
        if (token.get().startsWith(RunnerKey.PREFIX)) {
            return new ApiException(
                    403, "forbidden", "runner keys cannot use the management API; use an API token or the admin token");
        }
        return new ApiException(401, "unauthorized", "unknown, revoked or expired token");
    }

    /** The role {@code principal} has on {@code project}: every role for the admin, empty when out of reach. */
    public static Optional<Role> roleOn(Principal principal, Project project) {
        return switch (principal) {
            case Principal.Admin a -> Optional.of(Role.OWNER);
            case Principal.TokenHolder t -> t.roleOn(project);
        };
    }

    public static Optional<Role> roleOn(Principal principal, Organization organization) {
        return switch (principal) {
            case Principal.Admin a -> Optional.of(Role.OWNER);
            case Principal.TokenHolder t -> t.roleOnOrganization(organization.id());
        };
    }

    /**
     * The project {@code found} for {@code ref}, when the principal has at least {@code role} on it.
     * Missing and out of reach get one and the same 404 {@code project_not_found} (naming {@code field}
     * when the reference came from the body); too small a role on a reachable project gets 403.
     */
    public static Project reachableProject(
            Principal principal, Optional<Project> found, Role role, String ref, String field) {
        Project project =
                found.filter(p -> roleOn(principal, p).isPresent()).orElseThrow(() -> projectNotFound(ref, field));
        requireProject(principal, project, role, ref, field);
        return project;
    }

    public static Organization reachableOrganization(
            Principal principal, Optional<Organization> found, Role role, String ref, String field) {
        Organization org =
                found.filter(o -> roleOn(principal, o).isPresent()).orElseThrow(() -> organizationNotFound(ref, field));
        requireOrganization(principal, org, role, ref, field);
        return org;
    }

    /** 404 {@code project_not_found} out of reach (as if missing), 403 with too small a role. */
    public static void requireProject(Principal principal, Project project, Role role, String ref) {
        requireProject(principal, project, role, ref, null);
    }

    public static void requireProject(Principal principal, Project project, Role role, String ref, String field) {
        Role has = roleOn(principal, project).orElseThrow(() -> projectNotFound(ref, field));
        if (!has.includes(role)) throw tooSmall(has, role, "project '" + project.slug() + "'");
    }

    public static void requireOrganization(Principal principal, Organization org, Role role, String ref, String field) {
        Role has = roleOn(principal, org).orElseThrow(() -> organizationNotFound(ref, field));
        if (!has.includes(role)) throw tooSmall(has, role, "organization '" + org.slug() + "'");
    }

    /** The one answer for a project that is missing or out of reach; {@code field}: the body field that named it, or null for a path. */
    public static ApiException projectNotFound(String ref, String field) {
        return new ApiException(404, "project_not_found", "no project '" + ref + "'", field);
    }

    public static ApiException organizationNotFound(String ref, String field) {
        return new ApiException(404, "organization_not_found", "no organization '" + ref + "'", field);
    }

    static ApiException tooSmall(Role has, Role needed, String where) {
        return new ApiException(
                403,
                "forbidden",
                "this needs role " + needed.wireName() + " on " + where + "; the token has " + has.wireName());
    }
}

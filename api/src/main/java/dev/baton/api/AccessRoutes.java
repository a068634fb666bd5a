package dev.baton.api;

import dev.baton.api.AccessViews.AuditEventView;
import dev.baton.api.AccessViews.AuditPage;
import dev.baton.api.AccessViews.CreatedToken;
import dev.baton.api.AccessViews.MemberView;
import dev.baton.api.AccessViews.TokenView;
import dev.baton.api.AccessViews.UserView;
import dev.baton.api.AccessViews.WhoAmI;
import dev.baton.core.config.Durations;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.id.TokenUuid;
import dev.baton.store.AuditEvent;
import dev.baton.store.AuditFilter;
import dev.baton.store.Membership;
import dev.baton.store.NewToken;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Role;
import dev.baton.store.StoredToken;
import dev.baton.store.User;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.ApiTokenSecret;
import dev.baton.web.auth.Principal;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

/** Users, API tokens, {@code whoami} and the audit log. Who may call what: auth.RouteTable. */
public final class AccessRoutes implements RouteModule {
    static final Duration MAX_TOKEN_LIFETIME = Duration.ofDays(3650);
    static final int DEFAULT_AUDIT_LIMIT = 100;
    static final int MAX_AUDIT_LIMIT = 1000;

    private final ApiContext api;
    private final Lookups find;

    public AccessRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    record CreateUser(String name) {}

    /** One of project and organization; {@code expiresIn} as "30d", "12h", seconds, or absent for a token that does not expire. */
    record CreateToken(String user, String project, String organization, String role, String name, String expiresIn) {}

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get("/v0/whoami", this::whoami);
        config.routes.post("/v0/users", this::createUser);
        config.routes.get(
                "/v0/users",
                ctx -> Json.write(
                        ctx,
                        200,
                        api.store().access().listUsers().stream()
                                .map(UserView::of)
                                .toList()));
        config.routes.get(
                "/v0/users/{user}", ctx -> Json.write(ctx, 200, UserView.of(user(ctx.pathParam("user"), null))));
        config.routes.post("/v0/tokens", this::createToken);
        config.routes.get("/v0/tokens", this::listTokens);
        config.routes.delete("/v0/tokens/{token}", this::revokeToken);
        config.routes.get("/v0/audit", this::audit);
    }

    private void whoami(Context ctx) {
        Principal who = api.access().authenticate(ctx);
        switch (who) {
            case Principal.Admin a -> Json.write(ctx, 200, new WhoAmI(who.actor(), true, null, List.of()));
            case Principal.TokenHolder t ->
                Json.write(
                        ctx,
                        200,
                        new WhoAmI(
                                who.actor(),
                                false,
                                TokenView.of(api.store(), t.token(), api.now()),
                                t.memberships().stream()
                                        .map(m -> MemberView.of(api.store(), m))
                                        .toList()));
        }
    }

    private void createUser(Context ctx) {
        CreateUser body = api.body(ctx, CreateUser.class);
        String name = Fields.name("name", Fields.require("name", body.name()));
        if (name.startsWith(ApiTokenSecret.PREFIX))
            throw ApiException.invalidField("name", "a user name must not look like a token");
        try {
            Json.write(ctx, 201, UserView.of(api.store().access().createUser(name, api.now())));
        } catch (dev.baton.store.StoreException e) {
            if (e.reason() == dev.baton.store.StoreException.Reason.CONFLICT) {
                throw new ApiException(
                        409, "user_name_taken", "user name '" + name + "' is in use; choose another name", "name");
            }
            throw e;
        }
    }

    private User user(String ref, String field) {
        return api.store()
                .access()
                .findUser(ResourceId.of(ref))
                .orElseThrow(() -> new ApiException(404, "user_not_found", "no user '" + ref + "'", field));
    }

    private void createToken(Context ctx) {
        CreateToken body = api.body(ctx, CreateToken.class);
        if ((body.project() == null) == (body.organization() == null)) {
            throw ApiException.invalidField(
                    "project", "give exactly one of project and organization: the token's scope");
        }
        // The scope before anything else in the body: a caller who is not its owner learns nothing
        // more (missing and out of reach: the same 404, field and all; a smaller role: 403).
        Principal who = api.access().authenticate(ctx);
        Project project = null;
        Organization org = null;
        if (body.project() != null) {
            project = AccessControl.reachableProject(
                    who,
                    api.store().organizations().findProject(Fields.resourceId("project", body.project())),
                    Role.OWNER,
                    body.project(),
                    "project");
        } else {
            org = AccessControl.reachableOrganization(
                    who,
                    api.store()
                            .organizations()
                            .findOrganization(Fields.resourceId("organization", body.organization())),
                    Role.OWNER,
                    body.organization(),
                    "organization");
        }
        String userRef = Fields.require("user", body.user());
        Role role = Fields.parse("role", Fields.require("role", body.role()), Role::parse);
        Instant expires = null;
        if (body.expiresIn() != null) {
            Duration lifetime = Fields.parse("expires_in", body.expiresIn(), Durations::parse);
            if (lifetime.isZero() || lifetime.isNegative() || lifetime.compareTo(MAX_TOKEN_LIFETIME) > 0) {
                throw ApiException.invalidField("expires_in", "expires_in must be longer than zero and at most 3650d");
            }
            expires = api.now().plus(lifetime);
        }
        String name = body.name() == null ? role.wireName() + " token" : Fields.name("name", body.name());
        User user = user(userRef, "user");
        Long orgId = org == null ? null : org.id();
        Long projectId = project == null ? null : project.id();
        Role member = project != null
                ? memberRole(user, project.organizationId(), project.id())
                : memberRole(user, org.id(), null);
        if (member == null || !member.includes(role)) {
            throw new ApiException(
                    409,
                    "role_exceeds_membership",
                    "user '" + user.name() + "' has " + (member == null ? "no role" : "role " + member.wireName())
                            + " there; a token cannot have more than its user (add the user as a member first)",
                    "role");
        }
        ApiTokenSecret secret = ApiTokenSecret.generate();
        StoredToken token = api.store()
                .access()
                .createToken(new NewToken(user.id(), name, secret.hash(), orgId, projectId, role, expires), api.now());
        Json.write(ctx, 201, new CreatedToken(TokenView.of(api.store(), token, api.now()), secret.reveal()));
    }

    /** The user's role on the organization, or on the project (which inherits the organization's), or null. */
    private Role memberRole(User user, long organizationId, Long projectId) {
        Role best = null;
        for (Membership m : api.store().access().membershipsOf(user.id())) {
            boolean here = m.organizationId() != null
                    ? m.organizationId() == organizationId
                    : projectId != null && m.projectId().equals(projectId);
            if (here && (best == null || m.role().includes(best))) best = m.role();
        }
        return best;
    }

    private void listTokens(Context ctx) {
        Principal who = api.access().authenticate(ctx);
        String userRef = ctx.queryParam("user");
        Long userId = null;
        if (userRef != null && !userRef.isBlank()) {
            // Only the admin learns whether a user exists; anyone else sees no tokens of an unknown user.
            Optional<User> user = api.store().access().findUser(ResourceId.of(userRef));
            if (user.isEmpty() && !(who instanceof Principal.TokenHolder))
                throw new ApiException(404, "user_not_found", "no user '" + userRef + "'", "user");
            if (user.isEmpty()) {
                Json.write(ctx, 200, List.of());
                return;
            }
            userId = user.get().id();
        }
        Instant now = api.now();
        Json.write(
                ctx,
                200,
                api.store().access().listTokens(userId).stream()
                        .filter(t -> visible(who, t))
                        .map(t -> TokenView.of(api.store(), t, now))
                        .toList());
    }

    /** A token is visible to the admin, to its own user, and to owners of its scope; to anyone else it does not exist. */
    private boolean visible(Principal who, StoredToken t) {
        if (!(who instanceof Principal.TokenHolder holder)) return true;
        if (holder.user().id() == t.userId()) return true;
        Optional<Role> role = t.projectId() != null
                ? api.store().organizations().findProject(t.projectId()).flatMap(holder::roleOn)
                : holder.roleOnOrganization(t.organizationId());
        return role.filter(r -> r.includes(Role.OWNER)).isPresent();
    }

    private void revokeToken(Context ctx) {
        Principal who = api.access().authenticate(ctx);
        String ref = ctx.pathParam("token");
        StoredToken token;
        try {
            token = api.store()
                    .access()
                    .findToken(TokenUuid.parse(ref))
                    .filter(t -> visible(who, t))
                    .orElseThrow(() -> tokenNotFound(ref));
        } catch (IllegalArgumentException e) {
            throw tokenNotFound(ref);
        }
        api.store().access().revokeToken(token.id(), api.now());
        Json.write(
                ctx,
                200,
                TokenView.of(
                        api.store(),
                        api.store().access().findToken(token.uuid()).orElseThrow(),
                        api.now()));
    }

    private static ApiException tokenNotFound(String ref) {
        return ApiException.notFound("token_not_found", "no token '" + ref + "'");
    }

    private void audit(Context ctx) {
        int limit = Fields.intParam("limit", ctx.queryParam("limit"), DEFAULT_AUDIT_LIMIT, 1, MAX_AUDIT_LIMIT);
        Long before = ctx.queryParam("before") == null
                ? null
                : (long) Fields.intParam("before", ctx.queryParam("before"), 0, 1, Integer.MAX_VALUE);
        AuditFilter filter = new AuditFilter(
                blankToNull(ctx.queryParam("actor")),
                blankToNull(ctx.queryParam("action")),
                time("since", ctx.queryParam("since")),
                time("until", ctx.queryParam("until")),
                before,
                limit + 1);
        List<AuditEvent> events = api.store().access().audit(filter);
        boolean more = events.size() > limit;
        List<AuditEventView> page =
                events.stream().limit(limit).map(AuditEventView::of).toList();
        Json.write(ctx, 200, new AuditPage(page, more ? page.getLast().id() : null));
    }

    private static Instant time(String name, String raw) {
        if (raw == null) return null;
        try {
            return Instant.parse(raw);
        } catch (DateTimeParseException e) {
            throw new ApiException(
                    400,
                    "invalid_parameter",
                    name + " must be an ISO-8601 UTC time such as 2026-01-01T00:00:00Z",
                    name);
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}

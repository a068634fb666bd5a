package dev.baton.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.store.token.Access;
import dev.baton.store.token.Grant;
import dev.baton.store.token.IssuedToken;
import dev.baton.store.token.RegistryTokens;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code /v2/token}: the token endpoint of the Docker/OCI token flow. GET takes HTTP basic auth
 * and {@code scope} parameters ({@code repository:<name>:<actions>}); POST takes the OAuth2
 * password grant as a form. The password is the admin token, which gets exactly the requested
 * scopes; a user's API token, which gets the requested scopes narrowed to what its role allows on
 * each project (docs/registry.md); or a registry JWT (a runner pull token, say), which
 * is returned unchanged, so that clients that only know the token flow can use it as a password.
 */
final class TokenEndpoint {
    private final RegistryAuth auth;
    private final RegistryTokens tokens;
    private final ProjectLookup projects;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();

    TokenEndpoint(RegistryAuth auth, RegistryTokens tokens, ProjectLookup projects, Clock clock) {
        this.auth = auth;
        this.tokens = tokens;
        this.projects = projects;
        this.clock = clock;
    }

    void handle(Context ctx) throws Exception {
        Optional<String> password;
        List<String> scopes = new ArrayList<>();
        boolean oauth = ctx.method().name().equals("POST");
        if (oauth) {
            String grantType = ctx.formParam("grant_type");
            if (!"password".equals(grantType)) {
                oauthError(ctx, 400, "unsupported_grant_type", "only the password grant is supported");
                return;
            }
            password = Optional.ofNullable(ctx.formParam("password"));
            String scope = ctx.formParam("scope");
            if (scope != null) scopes.add(scope);
        } else {
            password = RegistryAuth.basicPassword(ctx.header("Authorization"));
            scopes.addAll(ctx.queryParams("scope"));
        }
        Optional<Grant> grant = password.flatMap(auth::fromPassword);
        if (grant.isEmpty()) {
            ctx.header("WWW-Authenticate", "Basic realm=\"baton\"");
            if (oauth) {
                oauthError(
                        ctx,
                        401,
                        "invalid_grant",
                        "the password must be an API token, the admin token or a registry token");
            } else {
                RegistryModule.writeError(
                        ctx,
                        new RegistryException(
                                ErrorCode.UNAUTHORIZED,
                                "the password must be an API token, the admin token or a registry token"));
            }
            return;
        }
        Instant now = clock.instant();
        String token;
        Instant issuedAt;
        Duration expiresIn;
        if (grant.get().admin() || PrincipalGrants.isApiToken(password.get())) {
            // No wider than the caller: the admin gets what it asks; a user's token what it asks of what its role
            // allows.
            List<Access> access = grant.get().admin() ? requested(scopes) : narrowed(requested(scopes), grant.get());
            IssuedToken issued = tokens.issueUserToken(grant.get().subject(), access, now);
            token = issued.token();
            issuedAt = issued.issuedAt();
            expiresIn = issued.expiresIn();
        } else {
            token = password.get();
            issuedAt = now;
            expiresIn = Duration.between(now, grant.get().expires());
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("token", token);
        body.put("access_token", token);
        body.put("expires_in", expiresIn.toSeconds());
        body.put("issued_at", DateTimeFormatter.ISO_INSTANT.format(issuedAt));
        if (oauth) body.put("scope", String.join(" ", scopes));
        ctx.status(200).contentType("application/json").result(json.writeValueAsBytes(body));
    }

    /** The access entries a set of scope strings asks for; malformed or unknown scopes grant nothing. */
    private List<Access> requested(List<String> scopes) {
        Map<String, Set<String>> byName = new LinkedHashMap<>();
        for (String param : scopes) {
            for (String scope : param.trim().split("\\s+")) {
                int first = scope.indexOf(':');
                int last = scope.lastIndexOf(':');
                if (first < 0 || last <= first || !scope.substring(0, first).equals("repository")) continue;
                Optional<RepositoryName> name = RepositoryName.parse(scope.substring(first + 1, last));
                if (name.isEmpty()) continue;
                Set<String> actions =
                        new HashSet<>(Arrays.asList(scope.substring(last + 1).split(",")));
                actions.retainAll(Access.KNOWN_ACTIONS);
                if (actions.isEmpty()) continue;
                byName.computeIfAbsent(canonical(name.get()), k -> new HashSet<>())
                        .addAll(actions);
            }
        }
        List<Access> access = new ArrayList<>();
        byName.forEach((name, actions) -> access.add(new Access(Access.REPOSITORY, name, actions)));
        return access;
    }

    /** Of each requested entry, the actions {@code grant} allows on it; entries left with none are dropped. */
    private List<Access> narrowed(List<Access> requested, Grant grant) {
        List<Access> out = new ArrayList<>();
        for (Access a : requested) {
            int slash = a.name().indexOf('/');
            String project = slash < 0 ? a.name() : a.name().substring(0, slash);
            String path = slash < 0 ? "" : a.name().substring(slash + 1);
            Set<String> allowed = new HashSet<>();
            for (String action : List.of("pull", "push", "delete")) {
                if ((a.allows(action)) && grant.allows(project, path, a.name(), action)) allowed.add(action);
            }
            if (!allowed.isEmpty()) out.add(new Access(Access.REPOSITORY, a.name(), allowed));
        }
        return out;
    }

    private String canonical(RepositoryName name) {
        Optional<ProjectUuid> project = projects.find(ResourceId.of(name.project()));
        if (project.isEmpty()) return name.text();
        return new RepositoryKey(project.get(), name.path()).canonical();
    }

    private void oauthError(Context ctx, int status, String error, String description) throws Exception {
        ctx.status(status)
                .contentType("application/json")
                .result(json.writeValueAsBytes(Map.of("error", error, "error_description", description)));
    }
}

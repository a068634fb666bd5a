package dev.baton.registry;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.store.token.Grant;
import io.javalin.http.Context;
import java.util.Map;
import java.util.Optional;

/**
 * Who may do what to which repository: the request's credentials authenticated, its repository
 * name resolved to a project, the action checked against the grant. A refusal carries the Bearer
 * challenge (realm, service, scope) that sends a client to the token endpoint for the scope it
 * lacks.
 */
final class RepositoryAccess {
    /** A request's repository, as written and as resolved, with the grant that reached it. */
    record Target(RepositoryName name, RepositoryKey key, Grant grant) {}

    private final RegistryAuth auth;
    private final ProjectLookup projects;
    /** Base URL for the token realm; null derives it from each request's Host. */
    private final String publicUrl;

    RepositoryAccess(RegistryAuth auth, ProjectLookup projects, String publicUrl) {
        this.auth = auth;
        this.projects = projects;
        this.publicUrl = publicUrl;
    }

    /**
     * Authenticates, resolves the project and checks {@code action}. Without valid credentials, or
     * with credentials that do not reach this repository, the answer is 401 with a challenge; an
     * unknown project is reported (404) only to callers who could have used it, so that a token
     * for one project learns nothing about the others.
     */
    Target authorize(Context ctx, String rawName, String action) {
        RepositoryName name = RepositoryName.parse(rawName)
                .orElseThrow(() -> new RegistryException(
                        ErrorCode.NAME_INVALID, "invalid repository name " + rawName, Map.of("name", rawName)));
        String scopeActions = action.equals("push") ? "pull,push" : action;
        Grant grant = auth.authenticate(ctx.header("Authorization"))
                .orElseThrow(() -> challenge(ctx, name, scopeActions, false, "authentication required"));
        Optional<ProjectUuid> project = projects.find(ResourceId.of(name.project()));
        if (project.isEmpty()) {
            if (grant.allows(name.project(), name.path(), name.text(), action)) {
                throw new RegistryException(
                        ErrorCode.NAME_UNKNOWN,
                        "project " + name.project() + " does not exist",
                        Map.of("name", name.text()));
            }
            throw challenge(ctx, name, scopeActions, true, "access to " + name + " denied");
        }
        RepositoryKey key = new RepositoryKey(project.get(), name.path());
        if (!grant.allows(project.get().toString(), name.path(), name.text(), action)) {
            throw challenge(ctx, name, scopeActions, true, "access to " + name + " denied");
        }
        return new Target(name, key, grant);
    }

    /** The repository a mount may copy from: in the target's project and readable by its grant; empty otherwise. */
    Optional<RepositoryKey> mountSource(Context ctx, Target target, String from) {
        Optional<RepositoryName> name = RepositoryName.parse(from);
        if (name.isEmpty()) return Optional.empty();
        Optional<ProjectUuid> project = projects.find(ResourceId.of(name.get().project()));
        if (project.isEmpty() || !project.get().equals(target.key().project())) return Optional.empty();
        if (!target.grant()
                .allows(project.get().toString(), name.get().path(), name.get().text(), "pull"))
            return Optional.empty();
        return Optional.of(new RepositoryKey(project.get(), name.get().path()));
    }

    /**
     * The 401 for a request without credentials that reach {@code name}, its WWW-Authenticate
     * header set: where to get a token, for which scope ({@code name} null: none), and with
     * {@code insufficient} that the credentials were valid but do not reach the repository.
     */
    RegistryException challenge(
            Context ctx, RepositoryName name, String actions, boolean insufficient, String message) {
        StringBuilder header = new StringBuilder("Bearer realm=\"")
                .append(realm(ctx))
                .append("\",service=\"")
                .append(RegistryModule.SERVICE)
                .append('"');
        if (name != null)
            header.append(",scope=\"repository:")
                    .append(name.text())
                    .append(':')
                    .append(actions)
                    .append('"');
        if (insufficient) header.append(",error=\"insufficient_scope\"");
        ctx.header("WWW-Authenticate", header.toString());
        return new RegistryException(ErrorCode.UNAUTHORIZED, message);
    }

    private String realm(Context ctx) {
        String base = publicUrl != null ? publicUrl : ctx.scheme() + "://" + ctx.host();
        return base + "/v2/token";
    }
}

package dev.baton.server.registry;

import dev.baton.server.auth.AccessControl;
import dev.baton.server.auth.ApiTokenSecret;
import dev.baton.server.auth.Authenticator;
import dev.baton.server.auth.Principal;
import dev.baton.server.store.Project;
import dev.baton.server.store.Role;
import dev.baton.server.store.Store;
import dev.baton.server.token.Access;
import dev.baton.server.token.Grant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The registry's view of {@link Authenticator}: the admin token may do anything; a user's API
 * token may act on the repositories of each project in its reach by the role it has there
 * (viewer pull; submitter push too; maintainer and owner delete too), never more.
 */
public final class PrincipalGrants implements Credentials {
    private final Authenticator authenticator;
    private final Store store;

    public PrincipalGrants(Authenticator authenticator, Store store) {
        this.authenticator = authenticator;
        this.store = store;
    }

    @Override
    public Optional<Grant> grant(String secret) {
        return authenticator.authenticate(secret).map(this::grantOf);
    }

    /** True for secrets that are API tokens: the token endpoint mints a registry JWT for them. */
    static boolean isApiToken(String secret) {
        return ApiTokenSecret.looksLikeOne(secret);
    }

    private Grant grantOf(Principal principal) {
        if (principal instanceof Principal.Admin) return Grant.adminToken();
        List<Access> access = new ArrayList<>();
        for (Project project : store.organizations().listProjects()) {
            AccessControl.roleOn(principal, project)
                    .ifPresent(role ->
                            access.add(new Access(Access.PROJECT, project.uuid().toString(), actions(role))));
        }
        return new Grant(principal.actor(), access, false, null);
    }

    static Set<String> actions(Role role) {
        if (role.includes(Role.MAINTAINER)) return Set.of("pull", "push", "delete");
        if (role.includes(Role.SUBMITTER)) return Set.of("pull", "push");
        return Set.of("pull");
    }
}

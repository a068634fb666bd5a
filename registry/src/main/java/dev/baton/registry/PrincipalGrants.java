package dev.baton.registry;

import dev.baton.store.Project;
import dev.baton.store.Role;
import dev.baton.store.Store;
import dev.baton.store.token.Access;
import dev.baton.store.token.Grant;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.ApiTokenSecret;
import dev.baton.web.auth.Authenticator;
import dev.baton.web.auth.Principal;
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

package dev.baton.registry;

import dev.baton.store.token.Grant;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * What a secret presented to the registry (as a bearer token or a basic-auth password) grants,
 * apart from registry JWTs, which the registry verifies itself: the admin token everything, a
 * user's API token its projects' repositories by its role ({@link PrincipalGrants}).
 */
@FunctionalInterface
public interface Credentials {
    /** The grant of {@code secret}; empty when it is not a credential this accepts. */
    Optional<Grant> grant(String secret);

    /** Only the admin token (as {@code isAdminToken} tells it). */
    static Credentials adminOnly(Predicate<String> isAdminToken) {
        return secret -> isAdminToken.test(secret) ? Optional.of(Grant.adminToken()) : Optional.empty();
    }
}

package dev.baton.server.registry;

import dev.baton.server.token.Grant;
import dev.baton.server.token.RegistryTokens;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Who is calling the registry. Accepted credentials, in the {@code Authorization} header:
 *
 * <ul>
 *   <li>{@code Bearer <jwt>}: a token from {@code /v2/token} or a runner pull token (or the
 *       admin token itself, as the management API accepts it);
 *   <li>{@code Basic <user:password>}: the password is the admin token (full access) or a
 *       registry JWT (its own access), for clients that send credentials without the token
 *       flow. The user name is not checked: there are no user accounts yet.
 * </ul>
 */
final class RegistryAuth {
    private final RegistryTokens tokens;
    private final Predicate<String> isAdminToken;
    private final Clock clock;

    RegistryAuth(RegistryTokens tokens, Predicate<String> isAdminToken, Clock clock) {
        this.tokens = tokens;
        this.isAdminToken = isAdminToken;
        this.clock = clock;
    }

    /** The caller's grant; empty when there are no credentials or they are not valid. */
    Optional<Grant> authenticate(String authorization) {
        if (authorization == null) return Optional.empty();
        if (authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            // The admin token as a bearer too, the way the management API takes it.
            return fromPassword(authorization.substring(7).trim());
        }
        return basicPassword(authorization).flatMap(this::fromPassword);
    }

    /** A basic-auth password as credentials: the admin token, or a registry JWT. */
    Optional<Grant> fromPassword(String password) {
        // The predicate is the server's admin token check (constant time, see AdminToken).
        if (isAdminToken.test(password)) return Optional.of(Grant.adminToken());
        return tokens.verify(password, clock.instant());
    }

    static Optional<String> basicPassword(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) return Optional.empty();
        try {
            String decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            return colon < 0 ? Optional.empty() : Optional.of(decoded.substring(colon + 1));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}

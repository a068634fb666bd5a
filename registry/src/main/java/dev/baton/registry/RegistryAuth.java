package dev.baton.registry;

import dev.baton.store.token.Grant;
import dev.baton.store.token.RegistryTokens;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.Optional;

/**
 * Who is calling the registry. Accepted credentials, in the {@code Authorization} header:
 *
 * <ul>
 *   <li>{@code Bearer <jwt>}: a token from {@code /v2/token} or a runner pull token (or the
 *       admin token or a user's API token, as the management API accepts them);
 *   <li>{@code Basic <user:password>}: the password is the admin token (full access), a user's
 *       API token (its projects, by its role) or a registry JWT (its own access), for clients
 *       that send credentials without the token flow. The user name is not checked: the token
 *       says who it is.
 * </ul>
 */
final class RegistryAuth {
    private final RegistryTokens tokens;
    private final Credentials credentials;
    private final Clock clock;

    RegistryAuth(RegistryTokens tokens, Credentials credentials, Clock clock) {
        this.tokens = tokens;
        this.credentials = credentials;
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

    /** A basic-auth password as credentials: the admin token, a user's API token, or a registry JWT. */
    Optional<Grant> fromPassword(String password) {
        // The server's own check (constant time for the admin token, by hash for API tokens).
        Optional<Grant> grant = credentials.grant(password);
        if (grant.isPresent()) return grant;
        return tokens.verify(password, clock.instant());
    }

    static Optional<String> basicPassword(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) return Optional.empty();
        try {
            String decoded = new String(
                    Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            return colon < 0 ? Optional.empty() : Optional.of(decoded.substring(colon + 1));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}

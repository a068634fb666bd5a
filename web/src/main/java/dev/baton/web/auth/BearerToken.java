package dev.baton.web.auth;

import java.util.Optional;

/** Extracts the token of an {@code Authorization: Bearer <token>} header. */
public final class BearerToken {
    private static final String SCHEME = "bearer ";

    private BearerToken() {}

    public static Optional<String> of(String authorization) {
        if (authorization == null || authorization.length() <= SCHEME.length()) return Optional.empty();
        if (!authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) return Optional.empty();
        String token = authorization.substring(SCHEME.length()).strip();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }
}

package dev.baton.web.auth;

import dev.baton.store.AccessStore;
import dev.baton.store.StoredToken;
import dev.baton.store.User;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Turns a presented secret into a {@link Principal}: the admin token (compared in constant time),
 * or an API token looked up by the hash of its secret, refused when revoked or expired, with its
 * user's memberships read at this request (so a revocation or a removed membership counts at
 * once, on every server node). Secrets are never logged. The one entry point for the API, the
 * registry, the OJS binding and the console.
 */
public final class Authenticator {
    /** {@code last_used} is written at most this often per token, so a busy pipeline costs no write per request. */
    public static final Duration LAST_USED_GRANULARITY = Duration.ofMinutes(1);

    private final AdminToken admin;
    private final AccessStore store;
    private final Clock clock;

    public Authenticator(AdminToken admin, AccessStore store, Clock clock) {
        this.admin = admin;
        this.store = store;
        this.clock = clock;
    }

    /** The caller of an {@code Authorization: Bearer …} header; empty for none, unknown, revoked or expired. */
    public Optional<Principal> fromHeader(String authorization) {
        return BearerToken.of(authorization).flatMap(this::authenticate);
    }

    /** The caller presenting {@code secret}; empty for an unknown, malformed, revoked or expired one. */
    public Optional<Principal> authenticate(String secret) {
        if (secret == null) return Optional.empty();
        if (admin.matches(secret)) return Optional.of(new Principal.Admin());
        if (!ApiTokenSecret.looksLikeOne(secret)) return Optional.empty();
        ApiTokenSecret parsed;
        try {
            parsed = ApiTokenSecret.parse(secret);
        } catch (IllegalArgumentException malformed) {
            return Optional.empty();
        }
        var now = clock.instant();
        Optional<StoredToken> token = store.tokenByHash(parsed.hash()).filter(t -> t.activeAt(now));
        if (token.isEmpty()) return Optional.empty();
        Optional<User> user = store.findUser(token.get().userId());
        if (user.isEmpty()) return Optional.empty();
        if (token.get().lastUsed() == null || token.get().lastUsed().isBefore(now.minus(LAST_USED_GRANULARITY))) {
            store.touchToken(token.get().id(), now, LAST_USED_GRANULARITY);
        }
        return Optional.of(new Principal.TokenHolder(
                user.get(), token.get(), store.membershipsOf(user.get().id())));
    }
}

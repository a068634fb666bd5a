package dev.baton.store;

import dev.baton.protocol.id.TokenUuid;
import java.time.Instant;

/**
 * An API token as stored: never its secret, only the secret's hash (not even that leaves the
 * store). Scoped to an organization or a project (exactly one set).
 */
public record StoredToken(
        long id,
        TokenUuid uuid,
        long userId,
        String name,
        Long organizationId,
        Long projectId,
        Role role,
        Instant created,
        Instant expires,
        Instant lastUsed,
        Instant revoked) {

    /** Usable at {@code now}: not revoked and not expired. */
    public boolean activeAt(Instant now) {
        return revoked == null && (expires == null || now.isBefore(expires));
    }
}

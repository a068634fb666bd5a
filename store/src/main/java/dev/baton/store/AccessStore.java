package dev.baton.store;

import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.id.TokenUuid;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The store's access part (docs/api.md, "Access"): users, their memberships, API tokens (by the
 * hash of their secret) and the audit log. Reached through {@link Store#access()}.
 */
public interface AccessStore {
    /** {@link StoreException.Reason#CONFLICT} when the name is taken. */
    User createUser(String name, Instant now);

    /** By UUID or by name. */
    Optional<User> findUser(ResourceId id);

    Optional<User> findUser(long id);

    List<User> listUsers();

    /** Sets the user's role on the organization or project (one of the two ids), replacing any role there. */
    Membership setMembership(long userId, Long organizationId, Long projectId, Role role, Instant now);

    /** False when the user had no role there. */
    boolean removeMembership(long userId, Long organizationId, Long projectId);

    /** The members of an organization or of a project (one of the two ids). */
    List<Membership> members(Long organizationId, Long projectId);

    List<Membership> membershipsOf(long userId);

    StoredToken createToken(NewToken token, Instant now);

    /** The token whose secret hashes to {@code hash}, revoked and expired ones included (the caller decides). */
    Optional<StoredToken> tokenByHash(String hash);

    Optional<StoredToken> findToken(TokenUuid uuid);

    /** Every token, or the tokens of one user; newest first. */
    List<StoredToken> listTokens(Long userId);

    /** Records a use; written at most once per {@code granularity} (a token used in every request costs no write each). */
    void touchToken(long tokenId, Instant now, java.time.Duration granularity);

    /** False when it was revoked already. */
    boolean revokeToken(long tokenId, Instant now);

    /** The user whose API token submitted a job, if one did (not the admin token). */
    Optional<Long> jobSubmitter(long jobId);

    void appendAudit(
            Instant at, String actor, String token, String action, String target, String detail, String address);

    List<AuditEvent> audit(AuditFilter filter);

    /** Deletes audit events older than {@code before}; returns how many. */
    int pruneAudit(Instant before);
}

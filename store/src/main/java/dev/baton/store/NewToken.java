package dev.baton.store;

import java.time.Instant;

/** What creating an API token stores; {@code hash} is the SHA-256 of the secret, {@code expires} null for never. */
public record NewToken(
        long userId, String name, String hash, Long organizationId, Long projectId, Role role, Instant expires) {}

package dev.baton.store;

import java.time.Instant;
import java.util.UUID;

/**
 * A runner pool (issue 43): its settings, and its provider's state: {@code backoffUntil} and
 * {@code reason} while a failing provider backs off, {@code failedStarts} counted over its life.
 */
public record Pool(
        long id,
        UUID uuid,
        String slug,
        PoolSettings settings,
        Instant backoffUntil,
        String reason,
        int failedStarts,
        Instant created,
        Instant modified) {}

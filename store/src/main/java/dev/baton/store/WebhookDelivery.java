package dev.baton.store;

import java.time.Instant;

/**
 * One alert sent (or to be sent) to one webhook: the outbox row and its log. {@code nextAttempt}
 * null means done: {@code delivered} set, or given up after the last attempt.
 */
public record WebhookDelivery(
        long id,
        long projectId,
        long webhookId,
        String webhookUuid,
        String url,
        String secret,
        long alertId,
        String alertUuid,
        int attempts,
        Instant nextAttempt,
        Instant delivered,
        Integer lastStatus,
        String lastError,
        Instant created) {}

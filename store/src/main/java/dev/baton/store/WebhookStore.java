package dev.baton.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Alert webhooks and their outbox (docs/alerts.md, "Webhooks"). Deliveries are written with the
 * alerts ({@link AlertStore#recordJudgement}); senders on any node take the due ones with a
 * compare-and-set, so each attempt is made by one node.
 */
public interface WebhookStore {
    Webhook createWebhook(long projectId, String url, String secret, Instant now);

    /** The project's webhooks that are not deleted, oldest first. */
    List<Webhook> webhooks(long projectId);

    Optional<Webhook> findWebhook(long projectId, String uuid);

    /** Marks it deleted (its pending deliveries are not sent); false when there was none. */
    boolean deleteWebhook(long projectId, String uuid, Instant now);

    /** Deliveries due at {@code now}, oldest first. */
    List<WebhookDelivery> dueDeliveries(Instant now, int limit);

    /**
     * Takes a due delivery for one attempt: moves its next attempt from {@code due} to
     * {@code retryAt} (when it is tried again should this node die while sending). False when
     * another node took it first.
     */
    boolean takeDelivery(long id, Instant due, Instant retryAt);

    /** Records an attempt: delivered when {@code delivered} is set; else tried again at {@code nextAttempt} (null: given up). */
    void recordAttempt(long id, Integer status, String error, Instant delivered, Instant nextAttempt);

    /** The webhook's deliveries, newest first. */
    List<WebhookDelivery> deliveries(long webhookId, int limit);
}

package dev.baton.store;

import java.time.Instant;

/**
 * One event sent (or to be sent) to one webhook: the outbox row and its log. {@code nextAttempt}
 * null means done: {@code delivered} set, or given up after the last attempt. An
 * {@link #ALERT_CREATED} delivery names its alert; a {@link #CHANGE_POINT_MOVED} or
 * {@link #CHANGE_POINT_WITHDRAWN} one names the alert group whose change points a later
 * judgement moved or withdrew and that judgement's report ({@code alertId} null).
 */
public record WebhookDelivery(
        long id,
        long projectId,
        long webhookId,
        String webhookUuid,
        String url,
        String secret,
        String event,
        Long alertId,
        String alertUuid,
        String groupUuid,
        String reportUuid,
        int attempts,
        Instant nextAttempt,
        Instant delivered,
        Integer lastStatus,
        String lastError,
        Instant created) {

    public static final String ALERT_CREATED = "alert.created";
    public static final String CHANGE_POINT_MOVED = "change_point.moved";
    public static final String CHANGE_POINT_WITHDRAWN = "change_point.withdrawn";
}

package dev.baton.store;

import static dev.baton.store.Rows.instant;
import static dev.baton.store.Rows.micros;
import static dev.baton.store.Rows.nullableInt;
import static dev.baton.store.Rows.nullableLong;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/** {@link Webhooks} in SQL both dialects accept, on the store's transactions ({@link StoreContext}). */
final class JdbcWebhooks implements Webhooks {
    private static final String WEBHOOK = "id, uuid, project_id, url, secret, created";
    private static final String DELIVERY =
            "SELECT d.id, w.project_id, d.webhook_id, w.uuid AS webhook_uuid, w.url, w.secret, d.event, d.alert_id,"
                    + " a.uuid AS alert_uuid, g.uuid AS group_uuid, r.uuid AS report_uuid,"
                    + " d.attempts, d.next_attempt, d.delivered, d.last_status, d.last_error, d.created"
                    + " FROM webhook_delivery d JOIN webhook w ON w.id = d.webhook_id"
                    + " LEFT JOIN alert a ON a.id = d.alert_id LEFT JOIN alert_group g ON g.id = d.group_id"
                    + " LEFT JOIN report r ON r.id = d.report_id";

    private static final RowMapper<Webhook> WEBHOOK_MAPPER = (rs, ctx) -> new Webhook(
            rs.getLong("id"),
            rs.getString("uuid"),
            rs.getLong("project_id"),
            rs.getString("url"),
            rs.getString("secret"),
            instant(rs, "created"));
    private static final RowMapper<WebhookDelivery> DELIVERY_MAPPER = (rs, ctx) -> new WebhookDelivery(
            rs.getLong("id"),
            rs.getLong("project_id"),
            rs.getLong("webhook_id"),
            rs.getString("webhook_uuid"),
            rs.getString("url"),
            rs.getString("secret"),
            rs.getString("event"),
            nullableLong(rs, "alert_id"),
            rs.getString("alert_uuid"),
            rs.getString("group_uuid"),
            rs.getString("report_uuid"),
            rs.getInt("attempts"),
            instant(rs, "next_attempt"),
            instant(rs, "delivered"),
            nullableInt(rs, "last_status"),
            rs.getString("last_error"),
            instant(rs, "created"));

    private final StoreContext context;

    JdbcWebhooks(StoreContext context) {
        this.context = context;
    }

    /**
     * The outbox rows of a judgement's change point revisions, in its transaction: for each alert
     * group whose change points it moved (or withdrew), one {@code change_point.moved} (or
     * {@code change_point.withdrawn}) per webhook of the project, however many metrics moved.
     */
    static void enqueueRevisions(Handle h, JudgedReport report, ChangePointRevisions revisions, Instant now) {
        enqueue(h, report, WebhookDelivery.CHANGE_POINT_MOVED, revisions.movedAlerts, now);
        enqueue(h, report, WebhookDelivery.CHANGE_POINT_WITHDRAWN, revisions.withdrawnAlerts, now);
    }

    private static void enqueue(Handle h, JudgedReport report, String event, Set<Long> alertIds, Instant now) {
        if (alertIds.isEmpty()) return;
        List<Long> groups = h.createQuery("SELECT DISTINCT group_id FROM alert WHERE id IN (<ids>)"
                        + " AND group_id IS NOT NULL ORDER BY group_id")
                .bindList("ids", List.copyOf(alertIds))
                .mapTo(Long.class)
                .list();
        for (long group : groups) {
            h.createUpdate(
                            "INSERT INTO webhook_delivery (webhook_id, event, group_id, report_id, attempts, next_attempt,"
                                    + " created) SELECT id, :event, :g, :r, 0, :now, :now FROM webhook"
                                    + " WHERE project_id = :p AND deleted IS NULL ON CONFLICT DO NOTHING")
                    .bind("event", event)
                    .bind("g", group)
                    .bind("r", report.id())
                    .bind("now", micros(now))
                    .bind("p", report.projectId())
                    .execute();
        }
    }

    @Override
    public Webhook createWebhook(long projectId, String url, String secret, Instant now) {
        return context.write(h -> {
            long id = h.createQuery(
                            "INSERT INTO webhook (uuid, project_id, url, secret, created) VALUES (:uuid, :p, :url, :secret, :now)"
                                    + " RETURNING id")
                    .bind("uuid", UUID.randomUUID().toString())
                    .bind("p", projectId)
                    .bind("url", url)
                    .bind("secret", secret)
                    .bind("now", micros(now))
                    .mapTo(Long.class)
                    .one();
            return h.createQuery("SELECT " + WEBHOOK + " FROM webhook WHERE id = :id")
                    .bind("id", id)
                    .map(WEBHOOK_MAPPER)
                    .one();
        });
    }

    @Override
    public List<Webhook> webhooks(long projectId) {
        return context.read(h -> h.createQuery(
                        "SELECT " + WEBHOOK + " FROM webhook WHERE project_id = :p AND deleted IS NULL ORDER BY id")
                .bind("p", projectId)
                .map(WEBHOOK_MAPPER)
                .list());
    }

    @Override
    public Optional<Webhook> findWebhook(long projectId, String uuid) {
        return context.read(h -> h.createQuery("SELECT " + WEBHOOK
                        + " FROM webhook WHERE project_id = :p AND uuid = :uuid AND deleted IS NULL")
                .bind("p", projectId)
                .bind("uuid", uuid)
                .map(WEBHOOK_MAPPER)
                .findOne());
    }

    @Override
    public boolean deleteWebhook(long projectId, String uuid, Instant now) {
        return context.write(h -> {
            int n = h.createUpdate(
                            "UPDATE webhook SET deleted = :now WHERE project_id = :p AND uuid = :uuid AND deleted IS NULL")
                    .bind("now", micros(now))
                    .bind("p", projectId)
                    .bind("uuid", uuid)
                    .execute();
            h.createUpdate(
                            "UPDATE webhook_delivery SET next_attempt = NULL WHERE webhook_id IN (SELECT id FROM webhook WHERE uuid = :uuid)")
                    .bind("uuid", uuid)
                    .execute();
            return n > 0;
        });
    }

    @Override
    public List<WebhookDelivery> dueDeliveries(Instant now, int limit) {
        return context.read(h -> h.createQuery(
                        DELIVERY + " WHERE d.next_attempt IS NOT NULL AND d.next_attempt <= :now AND w.deleted IS NULL"
                                + " ORDER BY d.next_attempt, d.id LIMIT :limit")
                .bind("now", micros(now))
                .bind("limit", limit)
                .map(DELIVERY_MAPPER)
                .list());
    }

    @Override
    public boolean takeDelivery(long id, Instant due, Instant retryAt) {
        return context.write(h -> h.createUpdate(
                                "UPDATE webhook_delivery SET next_attempt = :retry WHERE id = :id AND next_attempt = :due")
                        .bind("retry", micros(retryAt))
                        .bind("id", id)
                        .bind("due", micros(due))
                        .execute()
                > 0);
    }

    @Override
    public void recordAttempt(long id, Integer status, String error, Instant delivered, Instant nextAttempt) {
        context.write(h -> h.createUpdate(
                        "UPDATE webhook_delivery SET attempts = attempts + 1, last_status = :status, last_error = :error,"
                                + " delivered = :delivered, next_attempt = :next WHERE id = :id")
                .bind("status", status)
                .bind("error", error)
                .bind("delivered", micros(delivered))
                .bind("next", micros(nextAttempt))
                .bind("id", id)
                .execute());
    }

    @Override
    public List<WebhookDelivery> deliveries(long webhookId, int limit) {
        return context.read(h -> h.createQuery(DELIVERY + " WHERE d.webhook_id = :w ORDER BY d.id DESC LIMIT :limit")
                .bind("w", webhookId)
                .bind("limit", limit)
                .map(DELIVERY_MAPPER)
                .list());
    }
}

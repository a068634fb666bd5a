-- Webhook events for change points that a later judgement moved or withdrew (docs/alerts.md,
-- "Webhooks"; issue 44): the outbox carries the event's name, and such a delivery names the
-- alert group whose change points moved or were withdrawn and the report whose judgement did it
-- (one delivery per group, event and judgement, however many metrics the group covers) instead
-- of an alert. SQLite cannot drop a NOT NULL or a table's UNIQUE in place, so the table is made
-- again with its rows (nothing references webhook_delivery).
CREATE TABLE webhook_delivery_v39 (
    id           INTEGER PRIMARY KEY,
    webhook_id   INTEGER NOT NULL REFERENCES webhook (id) ON DELETE CASCADE,
    event        TEXT    NOT NULL DEFAULT 'alert.created',
    alert_id     INTEGER REFERENCES alert (id) ON DELETE CASCADE,
    group_id     INTEGER REFERENCES alert_group (id) ON DELETE CASCADE,
    report_id    INTEGER REFERENCES report (id) ON DELETE CASCADE,
    attempts     INTEGER NOT NULL,
    next_attempt INTEGER,
    delivered    INTEGER,
    last_status  INTEGER,
    last_error   TEXT,
    created      INTEGER NOT NULL
);
INSERT INTO webhook_delivery_v39 (id, webhook_id, event, alert_id, attempts, next_attempt, delivered, last_status,
                                  last_error, created)
SELECT id, webhook_id, 'alert.created', alert_id, attempts, next_attempt, delivered, last_status, last_error, created
FROM webhook_delivery;
DROP TABLE webhook_delivery;
ALTER TABLE webhook_delivery_v39 RENAME TO webhook_delivery;
CREATE INDEX index_webhook_delivery_due ON webhook_delivery (next_attempt) WHERE next_attempt IS NOT NULL;
CREATE INDEX index_webhook_delivery_webhook ON webhook_delivery (webhook_id, id);
CREATE UNIQUE INDEX index_webhook_delivery_alert ON webhook_delivery (webhook_id, alert_id) WHERE alert_id IS NOT NULL;
CREATE UNIQUE INDEX index_webhook_delivery_change ON webhook_delivery (webhook_id, event, group_id, report_id)
    WHERE alert_id IS NULL;

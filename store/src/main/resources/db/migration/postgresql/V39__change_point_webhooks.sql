-- Webhook events for change points that a later judgement moved or withdrew (docs/alerts.md,
-- "Webhooks"; issue 44): the outbox carries the event's name, and such a delivery names the
-- alert group whose change points moved or were withdrawn and the report whose judgement did it
-- (one delivery per group, event and judgement, however many metrics the group covers) instead
-- of an alert.
ALTER TABLE webhook_delivery ADD COLUMN event TEXT NOT NULL DEFAULT 'alert.created';
ALTER TABLE webhook_delivery ALTER COLUMN alert_id DROP NOT NULL;
ALTER TABLE webhook_delivery ADD COLUMN group_id BIGINT REFERENCES alert_group (id) ON DELETE CASCADE;
ALTER TABLE webhook_delivery ADD COLUMN report_id BIGINT REFERENCES report (id) ON DELETE CASCADE;
ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_webhook_id_alert_id_key;
CREATE INDEX index_webhook_delivery_webhook ON webhook_delivery (webhook_id, id);
CREATE UNIQUE INDEX index_webhook_delivery_alert ON webhook_delivery (webhook_id, alert_id) WHERE alert_id IS NOT NULL;
CREATE UNIQUE INDEX index_webhook_delivery_change ON webhook_delivery (webhook_id, event, group_id, report_id)
    WHERE alert_id IS NULL;

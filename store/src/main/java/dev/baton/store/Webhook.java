package dev.baton.store;

import java.time.Instant;

/** A project's alert webhook (docs/alerts.md, "Webhooks"); {@code secret} signs every body and is shown only when created. */
public record Webhook(long id, String uuid, long projectId, String url, String secret, Instant created) {}

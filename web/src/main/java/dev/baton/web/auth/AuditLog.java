package dev.baton.web.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.message.Wire;
import dev.baton.store.AccessStore;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records who changed what, when and from where ({@code GET /v0/audit}); events older than the
 * retention are deleted, at most once an hour, by whichever node records next. A failed write is
 * logged, not thrown: the action itself has already been committed.
 */
public final class AuditLog {
    private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);
    private static final Duration PRUNE_EVERY = Duration.ofHours(1);
    /** Response fields copied into an event's detail: identifiers and names, never a secret. */
    private static final List<String> DETAIL_FIELDS = List.of("uuid", "name", "slug", "role", "status");

    private static final List<String> NESTED = List.of("runner", "token", "user", "job", "webhook");

    private final AccessStore store;
    private final Clock clock;
    private final Duration retention;
    private final AtomicReference<Instant> lastPrune = new AtomicReference<>(Instant.MIN);

    public AuditLog(AccessStore store, Clock clock, Duration retention) {
        this.store = store;
        this.clock = clock;
        this.retention = retention;
    }

    public void record(Principal who, String action, String target, String detail, String address) {
        Instant now = clock.instant();
        String token = who instanceof Principal.TokenHolder t ? t.token().uuid().toString() : null;
        try {
            store.appendAudit(now, who.actor(), token, action, target, detail, address);
            Instant last = lastPrune.get();
            if (now.isAfter(last.plus(PRUNE_EVERY)) && lastPrune.compareAndSet(last, now))
                store.pruneAudit(now.minus(retention));
        } catch (RuntimeException e) {
            LOG.warn("audit event {} on {} by {} was not recorded", action, target, who.actor(), e);
        }
    }

    /** What the response said about the resource (its uuid, name, …) as JSON, or null; never the secret it may reveal. */
    static String detailOf(Context ctx) {
        String body;
        try {
            body = ctx.result();
        } catch (RuntimeException e) {
            return null;
        }
        if (body == null || body.isEmpty() || body.charAt(0) != '{') return null;
        try {
            JsonNode json = Wire.mapper().readTree(body);
            ObjectNode detail = Wire.mapper().createObjectNode();
            copy(json, detail);
            for (String nested : NESTED) {
                if (json.path(nested).isObject()) copy(json.path(nested), detail.putObject(nested));
            }
            // An alert's or a group's triage: the state it was set to (docs/alerts.md).
            if (json.path("triage").path("state").isTextual())
                detail.putObject("triage").set("state", json.path("triage").path("state"));
            return detail.isEmpty() ? null : detail.toString();
        } catch (Exception e) {
            return null;
        }
    }

    private static void copy(JsonNode from, ObjectNode to) {
        for (String field : DETAIL_FIELDS) {
            if (from.path(field).isValueNode()) to.set(field, from.path(field));
        }
    }
}

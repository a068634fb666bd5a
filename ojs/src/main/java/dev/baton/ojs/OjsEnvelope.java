package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Validates a pushed OJS job and builds the stored document. Every check runs before anything
 * is written; unknown top-level fields (extensions such as {@code x_custom}) are kept as given.
 */
final class OjsEnvelope {
    static final Pattern TYPE = Pattern.compile("^[a-z][a-z0-9_-]*(\\.[a-z][a-z0-9_-]*)*$");
    static final Pattern QUEUE = Pattern.compile("^[a-z0-9][a-z0-9._-]{0,254}$");
    private static final Set<String> KNOWN = Set.of("type", "args", "id", "meta", "options", "specversion");

    /** What a push resolved to, before it has an id or a state. */
    record Parsed(
            String id,
            String type,
            String queue,
            int priority,
            Instant scheduledAt,
            Instant expiresAt,
            OjsRetry retry,
            OjsUniquePolicy unique,
            OjsRateLimit rateLimit,
            ObjectNode document) {}

    private OjsEnvelope() {}

    static Parsed parse(JsonNode body, Instant now) {
        if (body == null || !body.isObject()) throw OjsException.invalidPayload("the job must be a JSON object");
        JsonNode type = body.get("type");
        if (type == null || type.isNull()) throw OjsException.invalid("type is required");
        if (!type.isTextual() || !TYPE.matcher(type.asText()).matches()) {
            throw OjsException.invalid("type must be dot-separated lowercase names such as email.send");
        }
        JsonNode args = body.get("args");
        if (args == null || args.isNull()) throw OjsException.invalid("args is required (a JSON array)");
        if (!args.isArray()) throw OjsException.invalid("args must be a JSON array");
        String id = null;
        if (body.has("id")) {
            JsonNode i = body.get("id");
            if (!i.isTextual() || !UuidV7.FORMAT.matcher(i.asText()).matches())
                throw OjsException.invalid("id must be a lowercase UUIDv7");
            id = i.asText();
        }
        if (body.has("meta") && !body.get("meta").isObject()) throw OjsException.invalid("meta must be an object");
        JsonNode options = body.path("options");
        if (!options.isMissingNode() && !options.isNull() && !options.isObject())
            throw OjsException.invalid("options must be an object");
        String queue = "default";
        if (options.has("queue")) {
            JsonNode q = options.get("queue");
            if (!q.isTextual() || !QUEUE.matcher(q.asText()).matches()) {
                throw OjsException.invalid(
                        "options.queue must be lowercase letters, digits, '.', '-' or '_', starting with a letter or digit");
            }
            queue = q.asText();
        }
        int priority = 0;
        if (options.has("priority")) {
            JsonNode p = options.get("priority");
            if (!p.isIntegralNumber() || !p.canConvertToInt() || p.asInt() < -100 || p.asInt() > 100) {
                throw OjsException.invalid("options.priority must be an integer from -100 to 100");
            }
            priority = p.asInt();
        }
        Long timeout = positiveMillis(options, "timeout_ms");
        Long visibility = positiveMillis(options, "visibility_timeout_ms");
        Instant scheduledAt = time(options, "scheduled_at", now);
        Instant delayUntil = time(options, "delay_until", now);
        if (scheduledAt == null) scheduledAt = delayUntil;
        Instant expiresAt = time(options, "expires_at", now);
        OjsRetry retry = OjsRetry.parse(options.get("retry"));
        OjsUniquePolicy unique = OjsUniquePolicy.parse(options.get("unique"));
        OjsRateLimit rateLimit = OjsRateLimit.parse(options.get("rate_limit"));

        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.put("specversion", "1.0");
        doc.put("id", "");
        doc.put("type", type.asText());
        doc.put("queue", queue);
        doc.set("args", args);
        if (body.has("meta")) doc.set("meta", body.get("meta"));
        doc.put("priority", priority);
        doc.put("attempt", 0);
        doc.put("max_attempts", retry.maxAttempts());
        if (timeout != null) doc.put("timeout_ms", timeout);
        if (visibility != null) doc.put("visibility_timeout_ms", visibility);
        if (options.has("tags")) doc.set("tags", options.get("tags"));
        if (options.has("metadata")) doc.set("metadata", options.get("metadata"));
        if (scheduledAt != null) doc.put("scheduled_at", OjsJson.format(scheduledAt));
        if (expiresAt != null) doc.put("expires_at", OjsJson.format(expiresAt));
        doc.set("retry", retry.toJson());
        if (options.isObject()) doc.set("options", options);
        for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!KNOWN.contains(e.getKey())) doc.set(e.getKey(), e.getValue());
        }
        return new Parsed(id, type.asText(), queue, priority, scheduledAt, expiresAt, retry, unique, rateLimit, doc);
    }

    private static Long positiveMillis(JsonNode options, String field) {
        if (!options.has(field)) return null;
        JsonNode v = options.get(field);
        if (!v.isIntegralNumber() || v.asLong() <= 0)
            throw OjsException.invalid("options." + field + " must be a positive integer");
        return v.asLong();
    }

    /** An ISO-8601 instant, or {@code +PT5S}: that long after now. */
    private static Instant time(JsonNode options, String field, Instant now) {
        if (!options.has(field) || options.get(field).isNull()) return null;
        String text = options.get(field).asText();
        try {
            if (text.startsWith("+")) return now.plus(Duration.parse(text.substring(1)));
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw OjsException.invalid("options." + field + " must be an ISO-8601 time or +duration");
        }
    }
}

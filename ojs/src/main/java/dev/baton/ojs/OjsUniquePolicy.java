package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A job's unique policy ({@code options.unique}): which parts of the job make its key
 * ({@code type}, {@code args}, {@code queue}, {@code meta}), in which states another job with the
 * same key is a duplicate (default: every non-terminal state), for how long after its creation
 * ({@code period}, default: always), and what a duplicate push does: {@code reject} (409,
 * default), {@code ignore} (200 with the existing job) or {@code replace} (the existing job is
 * cancelled, the new one enqueued).
 */
record OjsUniquePolicy(List<String> keys, List<String> states, Duration period, String onConflict) {
    private static final Set<String> KEYS = Set.of("type", "args", "queue", "meta");
    private static final List<String> NON_TERMINAL =
            List.of("pending", "scheduled", "available", "active", "retryable");
    private static final Set<String> CONFLICTS = Set.of("reject", "ignore", "replace");

    /** Null when the job has no {@code options.unique}; a malformed policy is a 400 naming the field. */
    static OjsUniquePolicy parse(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) return null;
        if (!node.isObject()) throw OjsException.invalid("options.unique must be an object");
        List<String> keys = new ArrayList<>();
        if (node.has("keys")) {
            if (!node.get("keys").isArray() || node.get("keys").isEmpty())
                throw OjsException.invalid("options.unique.keys must be a non-empty array");
            for (JsonNode k : node.get("keys")) {
                if (!KEYS.contains(k.asText()))
                    throw OjsException.invalid("options.unique.keys may hold type, args, queue and meta");
                keys.add(k.asText());
            }
        } else {
            keys.addAll(List.of("type", "args", "queue"));
        }
        List<String> states = new ArrayList<>();
        if (node.has("states")) {
            if (!node.get("states").isArray())
                throw OjsException.invalid("options.unique.states must be an array of job states");
            for (JsonNode s : node.get("states")) {
                try {
                    states.add(OjsState.of(s.asText()).wire());
                } catch (IllegalArgumentException e) {
                    throw OjsException.invalid("options.unique.states: not a job state: " + s.asText());
                }
            }
        } else {
            states.addAll(NON_TERMINAL);
        }
        Duration period = null;
        if (node.hasNonNull("period")) {
            try {
                period = Duration.parse(node.get("period").asText());
            } catch (DateTimeParseException e) {
                throw OjsException.invalid("options.unique.period must be an ISO-8601 duration such as PT1H");
            }
            if (period.isNegative() || period.isZero())
                throw OjsException.invalid("options.unique.period must be positive");
        }
        String onConflict = node.path("on_conflict").asText("reject");
        if (!CONFLICTS.contains(onConflict))
            throw OjsException.invalid("options.unique.on_conflict must be reject, ignore or replace");
        return new OjsUniquePolicy(List.copyOf(new TreeSet<>(keys)), List.copyOf(states), period, onConflict);
    }

    /** The key of a job document: a hash of the chosen parts, objects with their fields sorted so that field order does not matter. */
    String key(ObjectNode doc) {
        ObjectNode parts = JsonNodeFactory.instance.objectNode();
        for (String k : keys) parts.set(k, canonical(doc.path(k)));
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256")
                    .digest(OjsJson.write(parts).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode canonical(JsonNode node) {
        if (node.isObject()) {
            ObjectNode sorted = JsonNodeFactory.instance.objectNode();
            TreeSet<String> names = new TreeSet<>();
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) names.add(it.next());
            for (String n : names) sorted.set(n, canonical(node.get(n)));
            return sorted;
        }
        if (node.isArray()) {
            var array = JsonNodeFactory.instance.arrayNode();
            node.forEach(e -> array.add(canonical(e)));
            return array;
        }
        return node.isMissingNode() ? JsonNodeFactory.instance.nullNode() : node;
    }
}

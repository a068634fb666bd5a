package dev.baton.broker;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.baton.protocol.message.Wire;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import java.util.Collection;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads a transport-A request body as one of seed 003's messages, refusing as the rest of the API
 * does (docs/api.md): not UTF-8, a lone surrogate, not JSON or not an object is 400
 * {@code invalid_json}; JSON that is not the seed's shape (the wrong {@code type}, a required field
 * missing, a field of the wrong type) is 400 {@code invalid_message}, worded with the seed's
 * message and field names only, so no Java class or parser text reaches the runner. Unknown fields
 * are tolerated, as on the runner channel: a newer runner may send more.
 */
final class LeaseBodies {
    private LeaseBodies() {}

    /**
     * {@code body} as {@code type}, whose simple name is the seed's message type (AckLease,
     * Heartbeat, Complete, CancelAck); every field in {@code required} must be present and not
     * blank.
     */
    static <T> T read(byte[] body, Class<T> type, String... required) {
        String name = type.getSimpleName();
        JsonNode tree = tree(Json.text(body));
        JsonNode said = tree.get("type");
        if (said != null
                && !said.isNull()
                && !(said.isTextual() && said.asText().equals(name))) {
            throw invalid(name + ": type must be \"" + name + "\" on this route, not " + said);
        }
        for (String field : required) {
            JsonNode v = tree.get(field);
            if (v == null || v.isNull() || (v.isTextual() && v.asText().isBlank()))
                throw invalid(name + " needs " + field + " (seed 003)");
        }
        try {
            return Wire.mapper().treeToValue(tree, type);
        } catch (JsonMappingException e) {
            throw invalid(name + ": " + fault(e));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw invalid(name + ": not the seed's shape");
        }
    }

    private static JsonNode tree(String text) {
        try {
            JsonNode tree = Wire.mapper().readTree(text);
            if (tree == null || !tree.isObject())
                throw ApiException.badRequest("invalid_json", "request body must be a JSON object");
            return tree;
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
            throw ApiException.badRequest("invalid_json", "request body is not JSON" + where);
        }
    }

    /** The field at fault and what it should be, in the seed's words. */
    private static String fault(JsonMappingException e) {
        String field = e.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."))
                .replace(".[", "[");
        // A value object refused its value (IterationResult, a negative size, …): its reason is the client's.
        if (e.getCause() instanceof IllegalArgumentException bad && bad.getMessage() != null) {
            return (field.isEmpty() ? "" : "field " + field + ": ") + bad.getMessage();
        }
        if (field.isEmpty()) return "not the seed's shape";
        String expected =
                e instanceof MismatchedInputException m && m.getTargetType() != null ? kind(m.getTargetType()) : null;
        return "field " + field + (expected == null ? " has the wrong type" : " must be " + expected);
    }

    private static String kind(Class<?> t) {
        if (t == String.class) return "a string";
        if (t == Integer.class || t == int.class || t == Long.class || t == long.class) return "a whole number";
        if (t == Double.class || t == double.class || t == Float.class || t == float.class) return "a number";
        if (t == Boolean.class || t == boolean.class) return "true or false";
        if (t == java.time.Instant.class) return "an ISO-8601 instant such as 2026-01-04T08:00:05Z";
        if (Collection.class.isAssignableFrom(t) || t.isArray()) return "a list";
        if (Map.class.isAssignableFrom(t) || t.isRecord() || JsonNode.class.isAssignableFrom(t)) return "an object";
        return null;
    }

    private static ApiException invalid(String message) {
        return ApiException.badRequest("invalid_message", message);
    }
}

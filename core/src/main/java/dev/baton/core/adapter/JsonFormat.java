package dev.baton.core.adapter;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;

/**
 * An adapter for a tool that writes JSON: it parses the document once, and can say from the
 * document's shape whether it is its tool's (for {@code magic}).
 */
abstract class JsonFormat implements Adapter {

    /** Whether {@code document} has this tool's shape (its distinctive top-level fields). */
    abstract boolean recognizes(JsonNode document);

    abstract Metrics parse(JsonNode document);

    @Override
    public final Metrics parse(String text) {
        return parse(read(text));
    }

    static JsonNode read(String text) {
        if (text == null || text.isBlank()) throw new AdapterException("the output is empty");
        try {
            JsonNode node = Wire.mapper().readTree(text.strip());
            if (node == null) throw new AdapterException("the output is empty");
            return node;
        } catch (JsonProcessingException e) {
            throw new AdapterException(
                    "the output is not valid JSON (line " + e.getLocation().getLineNr() + ", column "
                            + e.getLocation().getColumnNr() + ")");
        }
    }

    /** A number field; JMH writes "NaN" as a string when it has no error estimate, which counts as absent. */
    static Double number(JsonNode parent, String field) {
        JsonNode n = parent.get(field);
        if (n == null || n.isNull()) return null;
        if (n.isNumber()) return n.doubleValue();
        if (n.isTextual() && n.textValue().equalsIgnoreCase("nan")) return null;
        throw new AdapterException("'" + field + "' must be a number");
    }

    static double required(JsonNode parent, String field, String where) {
        JsonNode raw = parent.get(field);
        if (raw != null && raw.isTextual() && raw.textValue().equalsIgnoreCase("nan"))
            throw new AdapterException(where + ": '" + field + "' is NaN: a result needs a number (issue 44)");
        Double v = number(parent, field);
        if (v == null) throw new AdapterException(where + ": '" + field + "' is missing");
        return v;
    }

    static String text(JsonNode parent, String field, String where) {
        JsonNode n = parent.get(field);
        if (n == null || !n.isTextual() || n.textValue().isBlank())
            throw new AdapterException(where + ": '" + field + "' is missing");
        return n.textValue();
    }

    static JsonNode array(JsonNode parent, String field) {
        JsonNode n = parent.get(field);
        if (n == null || !n.isArray()) throw new AdapterException("'" + field + "' must be an array");
        return n;
    }
}

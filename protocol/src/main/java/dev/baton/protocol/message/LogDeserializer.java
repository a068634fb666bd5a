package dev.baton.protocol.message;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import java.io.IOException;

/**
 * Reads a {@code log} message with exact types: the shared codec would turn {@code "seq": "7"}
 * into 7 and {@code "text": 5} into "5", and a log is the one message a runner sends many times
 * a second, so a sloppy sender must be told at once rather than half-understood. Range checks
 * are the record's own.
 */
final class LogDeserializer extends JsonDeserializer<RunnerMessage.Log> {
    @Override
    public RunnerMessage.Log deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        JsonNode node = p.readValueAsTree();
        if (node == null || !node.isObject()) throw new IllegalArgumentException("a log message must be a JSON object");
        return new RunnerMessage.Log(
                JobUuid.parse(string(node, "job")),
                LeaseId.parse(string(node, "lease")),
                integer(node, "seq"),
                LogStream.parse(string(node, "stream")),
                Math.toIntExact(integer(node, "iteration")),
                string(node, "text"),
                node.hasNonNull("dropped") ? integer(node, "dropped") : null);
    }

    private static String string(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) throw new IllegalArgumentException("log: " + field + " is required");
        if (!v.isTextual()) throw new IllegalArgumentException("log: " + field + " must be a string");
        return v.textValue();
    }

    private static long integer(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) throw new IllegalArgumentException("log: " + field + " is required");
        if (!v.isIntegralNumber() || !v.canConvertToLong())
            throw new IllegalArgumentException("log: " + field + " must be an integer");
        long value = v.longValue();
        if (field.equals("iteration") && (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException("log: iteration must be between " + RunnerMessage.Log.MIN_ITERATION
                    + " and " + RunnerMessage.Log.MAX_ITERATION + ", got " + value);
        }
        return value;
    }
}

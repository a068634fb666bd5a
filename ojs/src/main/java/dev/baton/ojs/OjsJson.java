package dev.baton.ojs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsRow;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** The stored OJS documents (jobs, events, crons, workflows, workers): reading, writing, serving, their timestamps. */
final class OjsJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private OjsJson() {}

    /** A time as OJS documents carry it: ISO-8601 in UTC, to the millisecond. */
    static String format(Instant t) {
        return t.truncatedTo(ChronoUnit.MILLIS).toString();
    }

    /** The job's document as served: internal bookkeeping removed. */
    static ObjectNode document(OjsRow row) {
        return served(read(row.document()));
    }

    static ObjectNode served(ObjectNode doc) {
        ObjectNode copy = doc.deepCopy();
        copy.remove("reserved_visibility_ms");
        return copy;
    }

    static ObjectNode read(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored OJS job is not JSON", e);
        }
    }

    static String write(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

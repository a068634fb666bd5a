package dev.baton.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.PrintWriter;

/** Prints API responses as indented JSON (pipe into jq for more). */
final class Output {
    private Output() {}

    static void json(PrintWriter out, JsonNode node) {
        if (node == null) return;
        try {
            out.println(Wire.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        out.flush();
    }
}

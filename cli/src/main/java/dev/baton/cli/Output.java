package dev.baton.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.Map;

/** Prints API responses: indented JSON for {@code --json} (pipe into jq), aligned text otherwise. */
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

    /** One JSON document on one line (for streams: one event per line). */
    static void jsonLine(PrintWriter out, JsonNode node) {
        out.println(node.toString());
        out.flush();
    }

    /** An object as "field  value" lines; nested objects flattened with dots, arrays shown compactly. */
    static void fields(PrintWriter out, JsonNode node) {
        if (node == null) return;
        if (node.isArray()) {
            for (JsonNode element : node) {
                fields(out, element);
                out.println();
            }
            out.flush();
            return;
        }
        Table table = new Table("FIELD", "VALUE");
        flatten("", node, table);
        table.print(out);
    }

    private static void flatten(String prefix, JsonNode node, Table table) {
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), table);
            }
        } else if (!node.isNull()) {
            table.row(prefix, text(node));
        }
    }

    /** An array of objects as a table: one column per field (headers are the field names, upper-cased; {@code a.b} a nested field). */
    static void list(PrintWriter out, JsonNode array, String... fields) {
        String[] headers = new String[fields.length];
        for (int i = 0; i < fields.length; i++) headers[i] = fields[i].toUpperCase(java.util.Locale.ROOT);
        Table table = new Table(headers);
        for (JsonNode row : array) {
            String[] cells = new String[fields.length];
            for (int i = 0; i < fields.length; i++) cells[i] = text(row.at("/" + fields[i].replace('.', '/')));
            table.row(cells);
        }
        if (table.isEmpty()) out.println("(none)");
        else table.print(out);
    }

    /** A command's words as a shell would read them back: plain words bare, others in single quotes. */
    static String words(JsonNode array) {
        if (array == null || !array.isArray()) return text(array);
        StringBuilder b = new StringBuilder();
        for (JsonNode w : array) {
            String word = w.asText();
            if (!b.isEmpty()) b.append(' ');
            b.append(word.matches("[A-Za-z0-9_@%+=:,./-]+") ? word : "'" + word.replace("'", "'\\''") + "'");
        }
        return b.toString();
    }

    /** Bytes as a person reads them: 4GiB, 512MiB, 1.5GiB. */
    static String bytes(JsonNode node) {
        if (node == null || !node.canConvertToLong()) return text(node);
        long n = node.asLong();
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return (v == Math.rint(v) ? String.valueOf((long) v) : String.format(java.util.Locale.ROOT, "%.1f", v))
                + units[u];
    }

    /** A value as a table cell: strings without quotes, anything else as compact JSON; null as "-". */
    static String text(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) return "-";
        if (node.isObject() && node.size() == 0) return "-";
        if (node.isObject()
                && node.properties().stream().allMatch(e -> e.getValue().isTextual())) {
            // Labels and the like read as on the command line: disk=nvme,kernel=6.8
            return String.join(
                    ",",
                    node.properties().stream()
                            .map(e -> e.getKey() + "=" + e.getValue().asText())
                            .toList());
        }
        return node.isValueNode() ? node.asText() : node.toString();
    }
}

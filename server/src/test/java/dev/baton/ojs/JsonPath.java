package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSONPath subset of the conformance README: {@code $.a.b}, {@code $.a[0]}, {@code $.a[*]}
 * (the rest of the path applies to every element, the result is an array) and
 * {@code $.a[?(@.k=='v')]} (the first element that matches). Null result: the path is absent.
 */
final class JsonPath {
    private static final Pattern FILTER = Pattern.compile("\\?\\(@\\.([A-Za-z0-9_.]+)\\s*==\\s*'([^']*)'\\)");

    private JsonPath() {}

    static JsonNode select(JsonNode root, String path) {
        if (root == null) return null;
        if (!path.startsWith("$")) throw new IllegalArgumentException("not a JSONPath: " + path);
        return walk(root, tokens(path.substring(1)), 0);
    }

    private static JsonNode walk(JsonNode node, List<String> tokens, int i) {
        if (node == null || node.isMissingNode()) return null;
        if (i == tokens.size()) return node;
        String t = tokens.get(i);
        if (t.equals("[*]")) {
            if (!node.isArray()) return null;
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            for (JsonNode e : node) {
                JsonNode v = walk(e, tokens, i + 1);
                if (v != null) out.add(v);
            }
            return out;
        }
        if (t.startsWith("[?")) {
            if (!node.isArray()) return null;
            Matcher m = FILTER.matcher(t.substring(1, t.length() - 1));
            if (!m.matches()) throw new IllegalArgumentException("unsupported filter " + t);
            for (JsonNode e : node) {
                JsonNode k = walk(e, tokens(("." + m.group(1))), 0);
                if (k != null && k.isValueNode() && k.asText().equals(m.group(2))) return walk(e, tokens, i + 1);
            }
            return null;
        }
        if (t.startsWith("[")) {
            int index = Integer.parseInt(t.substring(1, t.length() - 1));
            if (!node.isArray() || index >= node.size()) return null;
            return walk(node.get(index), tokens, i + 1);
        }
        if (!node.isObject() || !node.has(t)) return null;
        return walk(node.get(t), tokens, i + 1);
    }

    /** ".a.b[0][*][?(@.id=='x')]" into "a", "b", "[0]", "[*]", "[?(@.id=='x')]". */
    static List<String> tokens(String rest) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < rest.length()) {
            char c = rest.charAt(i);
            if (c == '.') {
                int j = i + 1;
                while (j < rest.length() && rest.charAt(j) != '.' && rest.charAt(j) != '[') j++;
                if (j > i + 1) out.add(rest.substring(i + 1, j));
                i = j;
            } else if (c == '[') {
                int depth = 0;
                int j = i;
                boolean quoted = false;
                for (; j < rest.length(); j++) {
                    char d = rest.charAt(j);
                    if (d == '\'') quoted = !quoted;
                    if (quoted) continue;
                    if (d == '[' || d == '(') depth++;
                    if (d == ']' || d == ')') depth--;
                    if (depth == 0) break;
                }
                out.add(rest.substring(i, j + 1));
                i = j + 1;
            } else {
                int j = i;
                while (j < rest.length() && rest.charAt(j) != '.' && rest.charAt(j) != '[') j++;
                out.add(rest.substring(i, j));
                i = j;
            }
        }
        return out;
    }
}

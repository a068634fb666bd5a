package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every matcher of the conformance README. {@link #mismatch} answers null when {@code actual}
 * (null: absent) satisfies {@code expected}, else why not.
 */
final class Matchers {
    static final Pattern UUID_ANY =
            Pattern.compile("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");
    static final Pattern UUID_V7 =
            Pattern.compile("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
    private static final Pattern RANGE = Pattern.compile("^number:range\\(\\s*(-?[0-9.]+)\\s*,\\s*(-?[0-9.]+)\\s*\\)$");
    private static final Set<String> OPERATORS = Set.of(
            "$exists", "$type", "$match", "$in", "$size", "$or", "range", "$gte", "$lte", "$gt", "$lt", "$empty", "$eq",
            "$ne");

    private Matchers() {}

    static String mismatch(JsonNode expected, JsonNode actual) {
        if (expected == null || expected.isNull()) {
            return actual != null && actual.isNull() ? null : "expected null, got " + show(actual);
        }
        if (expected.isTextual()) return text(expected.asText(), actual);
        if (expected.isNumber()) {
            return actual != null && actual.isNumber() && actual.decimalValue().compareTo(expected.decimalValue()) == 0
                    ? null
                    : "expected " + expected + ", got " + show(actual);
        }
        if (expected.isBoolean()) {
            return actual != null && actual.isBoolean() && actual.asBoolean() == expected.asBoolean()
                    ? null
                    : "expected " + expected + ", got " + show(actual);
        }
        if (expected.isArray()) {
            if (actual == null || !actual.isArray() || actual.size() != expected.size())
                return "expected " + expected + ", got " + show(actual);
            for (int i = 0; i < expected.size(); i++) {
                String m = mismatch(expected.get(i), actual.get(i));
                if (m != null) return "[" + i + "]: " + m;
            }
            return null;
        }
        return object(expected, actual);
    }

    private static String object(JsonNode expected, JsonNode actual) {
        boolean operators = false;
        for (Iterator<String> it = expected.fieldNames(); it.hasNext(); ) operators |= OPERATORS.contains(it.next());
        if (!operators) {
            if (actual == null || !actual.isObject()) return "expected an object, got " + show(actual);
            for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String m = mismatch(e.getValue(), actual.get(e.getKey()));
                if (m != null) return e.getKey() + ": " + m;
            }
            return null;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String m = operator(e.getKey(), e.getValue(), actual);
            if (m != null) return m;
        }
        return null;
    }

    private static String operator(String op, JsonNode arg, JsonNode actual) {
        switch (op) {
            case "$exists" -> {
                boolean present = actual != null;
                return present == arg.asBoolean()
                        ? null
                        : (arg.asBoolean() ? "expected to exist" : "expected absent, got " + show(actual));
            }
            case "$type" -> {
                return typeOf(actual).equals(arg.asText())
                                || (arg.asText().equals("number")
                                        && typeOf(actual).equals("integer"))
                        ? null
                        : "expected type " + arg.asText() + ", got " + typeOf(actual);
            }
            case "$match" -> {
                return actual != null
                                && actual.isValueNode()
                                && Pattern.compile(arg.asText())
                                        .matcher(actual.asText())
                                        .find()
                        ? null
                        : "expected to match /" + arg.asText() + "/, got " + show(actual);
            }
            case "$in" -> {
                for (JsonNode option : arg) if (mismatch(option, actual) == null) return null;
                return "expected one of " + arg + ", got " + show(actual);
            }
            case "$eq" -> {
                return mismatch(arg, actual);
            }
            case "$ne" -> {
                return mismatch(arg, actual) != null ? null : "expected not " + arg;
            }
            case "$size" -> {
                if (actual == null || !(actual.isArray() || actual.isObject()))
                    return "expected an array, got " + show(actual);
                if (arg.isNumber())
                    return actual.size() == arg.asInt() ? null : "expected size " + arg + ", got " + actual.size();
                return object(
                        arg, com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.numberNode(actual.size()));
            }
            case "$gte", "$gt", "$lte", "$lt" -> {
                if (actual == null || !actual.isNumber()) return "expected a number, got " + show(actual);
                double a = actual.asDouble();
                double b = arg.asDouble();
                boolean ok = switch (op) {
                    case "$gte" -> a >= b;
                    case "$gt" -> a > b;
                    case "$lte" -> a <= b;
                    default -> a < b;
                };
                return ok ? null : "expected " + op + " " + b + ", got " + a;
            }
            case "$or" -> {
                for (JsonNode option : arg) if (mismatch(option, actual) == null) return null;
                return "no alternative of " + arg + " matched " + show(actual);
            }
            case "range" -> {
                if (actual == null || !actual.isNumber()) return "expected a number, got " + show(actual);
                double v = actual.asDouble();
                if (arg.has("min") && v < arg.get("min").asDouble())
                    return "expected >= " + arg.get("min") + ", got " + v;
                if (arg.has("max") && v > arg.get("max").asDouble())
                    return "expected <= " + arg.get("max") + ", got " + v;
                return null;
            }
            case "$empty" -> {
                boolean empty = actual == null
                        || actual.isNull()
                        || ((actual.isArray() || actual.isObject()) && actual.isEmpty())
                        || (actual.isTextual() && actual.asText().isEmpty());
                return empty == arg.asBoolean() ? null : "expected empty=" + arg + ", got " + show(actual);
            }
            default -> throw new IllegalArgumentException("unknown operator " + op);
        }
    }

    private static String text(String m, JsonNode actual) {
        switch (m) {
            case "any":
                return null;
            case "exists":
                return actual != null ? null : "expected to exist";
            case "absent":
                return actual == null ? null : "expected absent, got " + show(actual);
            case "string:uuidv7":
                return isText(actual) && UUID_V7.matcher(actual.asText()).matches()
                        ? null
                        : "expected a UUIDv7, got " + show(actual);
            case "string:uuid":
                return isText(actual) && UUID_ANY.matcher(actual.asText()).matches()
                        ? null
                        : "expected a UUID, got " + show(actual);
            case "string:datetime":
                return isText(actual) && datetime(actual.asText())
                        ? null
                        : "expected an RFC 3339 time, got " + show(actual);
            case "string:nonempty", "string:non_empty":
                return isText(actual) && !actual.asText().isEmpty()
                        ? null
                        : "expected a non-empty string, got " + show(actual);
            case "number:positive":
                return actual != null && actual.isNumber() && actual.asDouble() > 0
                        ? null
                        : "expected a positive number, got " + show(actual);
            case "number:non_negative":
                return actual != null && actual.isNumber() && actual.asDouble() >= 0
                        ? null
                        : "expected a non-negative number, got " + show(actual);
            case "array:empty":
                return actual != null && actual.isArray() && actual.isEmpty()
                        ? null
                        : "expected an empty array, got " + show(actual);
            case "array:nonempty", "array:non_empty":
                return actual != null && actual.isArray() && !actual.isEmpty()
                        ? null
                        : "expected a non-empty array, got " + show(actual);
            default:
                break;
        }
        if (m.startsWith("string:contains:")) {
            String part = m.substring("string:contains:".length());
            return isText(actual) && actual.asText().contains(part)
                    ? null
                    : "expected a string containing '" + part + "', got " + show(actual);
        }
        if (m.startsWith("string:pattern(") && m.endsWith(")")) {
            String regex = m.substring("string:pattern(".length(), m.length() - 1);
            return isText(actual)
                            && Pattern.compile(regex).matcher(actual.asText()).find()
                    ? null
                    : "expected /" + regex + "/, got " + show(actual);
        }
        Matcher range = RANGE.matcher(m);
        if (range.matches()) {
            double lo = Double.parseDouble(range.group(1));
            double hi = Double.parseDouble(range.group(2));
            return actual != null && actual.isNumber() && actual.asDouble() >= lo && actual.asDouble() <= hi
                    ? null
                    : "expected a number in [" + lo + ", " + hi + "], got " + show(actual);
        }
        if (m.startsWith("~") && isNumber(m.substring(1))) {
            double n = Double.parseDouble(m.substring(1));
            double tolerance = Math.max(Math.abs(n) * 0.5, 100);
            return actual != null && actual.isNumber() && Math.abs(actual.asDouble() - n) <= tolerance
                    ? null
                    : "expected about " + n + " (±" + tolerance + "), got " + show(actual);
        }
        Integer length = arrayBound(m, "array:length");
        if (length != null) {
            return actual != null && actual.isArray() && actual.size() == length
                    ? null
                    : "expected " + length + " elements, got " + show(actual);
        }
        Integer min = arrayBound(m, "array:min_length");
        if (min == null) min = arrayBound(m, "array:min");
        if (min != null) {
            return actual != null && actual.isArray() && actual.size() >= min
                    ? null
                    : "expected at least " + min + " elements, got " + show(actual);
        }
        if (m.startsWith("one_of:")) {
            List<String> options = Arrays.stream(m.substring("one_of:".length()).split(","))
                    .map(String::strip)
                    .toList();
            return actual != null && actual.isValueNode() && options.contains(actual.asText())
                    ? null
                    : "expected one of " + options + ", got " + show(actual);
        }
        if (m.startsWith("contains:")) {
            return contains(actual, m.substring("contains:".length()))
                    ? null
                    : "expected to contain '" + m.substring(9) + "', got " + show(actual);
        }
        if (m.startsWith("not_contains:")) {
            return !contains(actual, m.substring("not_contains:".length()))
                    ? null
                    : "expected not to contain '" + m.substring(13) + "', got " + show(actual);
        }
        return isText(actual) && actual.asText().equals(m) ? null : "expected \"" + m + "\", got " + show(actual);
    }

    /** "array:length:3" or "array:length(3)"; null when {@code m} is not that matcher. */
    private static Integer arrayBound(String m, String prefix) {
        if (m.startsWith(prefix + ":"))
            return Integer.parseInt(m.substring(prefix.length() + 1).strip());
        if (m.startsWith(prefix + "(") && m.endsWith(")"))
            return Integer.parseInt(
                    m.substring(prefix.length() + 1, m.length() - 1).strip());
        return null;
    }

    private static boolean contains(JsonNode actual, String part) {
        if (actual == null) return false;
        if (actual.isArray()) {
            for (JsonNode e : actual) if (e.isValueNode() && e.asText().equals(part)) return true;
            return false;
        }
        return actual.isValueNode() && actual.asText().contains(part);
    }

    private static boolean isNumber(String s) {
        try {
            Double.parseDouble(s);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean isText(JsonNode n) {
        return n != null && n.isTextual();
    }

    private static boolean datetime(String s) {
        try {
            OffsetDateTime.parse(s);
            return true;
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    static String typeOf(JsonNode n) {
        if (n == null) return "absent";
        if (n.isTextual()) return "string";
        if (n.isIntegralNumber()) return "integer";
        if (n.isNumber()) return "number";
        if (n.isBoolean()) return "boolean";
        if (n.isArray()) return "array";
        if (n.isObject()) return "object";
        return "null";
    }

    static String show(JsonNode n) {
        if (n == null) return "(absent)";
        String s = n.toString();
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}

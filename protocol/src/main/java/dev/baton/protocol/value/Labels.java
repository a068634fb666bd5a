package dev.baton.protocol.value;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Runner labels, {@code key=value} (docs/scheduling.md, "Label routing"): what a runner has
 * ({@code nvme=true}, {@code kernel=6.8}) and what a job requires or prefers. The same rules
 * wherever they come from (the admin, a runner's {@code ready}, a run), so that a label one side
 * can state the other can match.
 */
public final class Labels {
    public static final int MAX_LABELS = 32;
    /** A key: a letter or digit, then up to 62 letters, digits, {@code . _ / -}. */
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]{0,62}");
    /** A value: 1–128 letters, digits, {@code . _ : / + -}. */
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9._:/+-]{1,128}");

    private Labels() {}

    /** The labels checked and sorted by key; null is none. */
    public static Map<String, String> of(Map<String, String> labels) {
        if (labels == null) return Map.of();
        if (labels.size() > MAX_LABELS)
            throw new IllegalArgumentException("at most " + MAX_LABELS + " labels, got " + labels.size());
        Map<String, String> sorted = new TreeMap<>();
        for (var e : labels.entrySet()) {
            String key = e.getKey();
            String value = e.getValue();
            if (key == null || !KEY.matcher(key).matches()) {
                throw new IllegalArgumentException("label key '" + key
                        + "' must be 1–63 letters, digits, '.', '_', '/' or '-', starting with a letter or digit");
            }
            if (value == null || !VALUE.matcher(value).matches()) {
                throw new IllegalArgumentException("label " + key + " has value '" + value
                        + "': values are 1–128 letters, digits, '.', '_', ':', '/', '+' or '-'");
            }
            sorted.put(key, value);
        }
        return Collections.unmodifiableMap(sorted);
    }

    /** One {@code key=value} as the CLI takes it. */
    public static Map.Entry<String, String> parse(String keyValue) {
        int eq = keyValue == null ? -1 : keyValue.indexOf('=');
        if (eq < 0) throw new IllegalArgumentException("a label is key=value, got '" + keyValue + "'");
        Map<String, String> one = of(Map.of(keyValue.substring(0, eq), keyValue.substring(eq + 1)));
        return one.entrySet().iterator().next();
    }
}

package dev.baton.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The client's config file ({@code ~/.config/baton/config}): {@code key = value} lines, {@code #}
 * comments. Keys: {@code server}, {@code token}, {@code token_file}. An unknown key is an error
 * naming the line, so a typo does not silently fall back to a default.
 */
record ClientConfig(Map<String, String> values) {
    static final Set<String> KEYS = Set.of("server", "token", "token_file");

    static ClientConfig read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            return new ClientConfig(Map.of());
        } catch (IOException e) {
            throw new ClientException("cannot read " + file + ": " + e.getMessage());
        }
        Map<String, String> values = new LinkedHashMap<>();
        String[] lines = text.split("\\R");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            int eq = line.indexOf('=');
            String key = eq < 0 ? line : line.substring(0, eq).strip();
            if (eq < 0 || !KEYS.contains(key)) {
                throw new ClientException(file + " line " + (i + 1) + ": expected one of "
                        + String.join(", ", KEYS.stream().sorted().toList()) + " as 'key = value', got '"
                        + (eq < 0 ? line : key) + "'");
            }
            values.put(key, unquote(line.substring(eq + 1).strip()));
        }
        return new ClientConfig(values);
    }

    String get(String key) {
        String v = values.get(key);
        return v == null || v.isEmpty() ? null : v;
    }

    private static String unquote(String v) {
        if (v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) {
            return v.substring(1, v.length() - 1);
        }
        return v;
    }
}

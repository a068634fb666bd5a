package dev.baton.store;

import java.util.Map;
import java.util.TreeMap;

/**
 * A runner's labels (docs/scheduling.md, "Label routing"): those the admin set and those the
 * runner reported in its last {@code ready}. The effective set is both, an admin label winning
 * over a reported one of the same key.
 */
public record RunnerLabels(Map<String, String> admin, Map<String, String> reported) {
    public static final RunnerLabels NONE = new RunnerLabels(Map.of(), Map.of());

    public RunnerLabels {
        admin = admin == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(admin));
        reported = reported == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(reported));
    }

    public Map<String, String> effective() {
        Map<String, String> all = new TreeMap<>(reported);
        all.putAll(admin);
        return java.util.Collections.unmodifiableMap(all);
    }
}

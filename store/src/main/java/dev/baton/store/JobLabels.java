package dev.baton.store;

import java.util.Map;
import java.util.TreeMap;

/**
 * The labels a job asks of its runner (docs/scheduling.md, "Label routing"): every
 * {@code required} one must be among the claiming runner's labels; {@code preferred} ones make
 * a runner that has them take the job before other jobs of the same priority.
 */
public record JobLabels(Map<String, String> required, Map<String, String> preferred) {
    public static final JobLabels NONE = new JobLabels(Map.of(), Map.of());

    public JobLabels {
        required = required == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(required));
        preferred = preferred == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(preferred));
    }

    public boolean isEmpty() {
        return required.isEmpty() && preferred.isEmpty();
    }

    /** Whether a runner with {@code labels} may take the job. */
    public boolean satisfiedBy(Map<String, String> labels) {
        return required.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
    }
}

package dev.baton.router;

import java.util.Set;

/**
 * One runner allowed behind the router: its name (what it puts in its channel URL, as
 * {@code --runner}), the SHA-256 of its key, and the specs (slugs) it serves.
 */
public record RunnerEntry(String name, String keyHash, Set<String> specs) {
    public RunnerEntry {
        specs = Set.copyOf(specs);
    }
}

package dev.baton.router;

import java.util.Set;

/**
 * One runner allowed behind the router: its name (what it puts in its channel URL, as
 * {@code --runner}), the SHA-256 of its key, and the specs (slugs) it serves.
 */
public record RunnerEntry(String name, String keyHash, Set<String> specs) {
    public RunnerEntry {
        specs = java.util.Collections.unmodifiableSortedSet(
                new java.util.TreeSet<>(specs)); // a stable order in files and lists
    }
}

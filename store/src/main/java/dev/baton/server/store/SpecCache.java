package dev.baton.server.store;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * Specs by id for the dispatcher's hand-out, which reads the job's spec on every claim (issue
 * 13). Every spec write through the store {@link #invalidate}s after its commit. An entry is
 * tagged with the generation current when its read began and served only while that generation
 * still is: a read that raced a write (began before its commit, stored after its invalidation)
 * can never be served afterwards.
 */
final class SpecCache {
    private record Entry(long generation, Spec spec) {}

    private final AtomicLong generation = new AtomicLong();
    private final Map<Long, Entry> entries = new ConcurrentHashMap<>();

    Optional<Spec> get(long id, LongFunction<Optional<Spec>> load) {
        long current = generation.get();
        Entry e = entries.get(id);
        if (e != null && e.generation() == current) return Optional.of(e.spec());
        Optional<Spec> loaded = load.apply(id);
        loaded.ifPresent(spec -> entries.put(id, new Entry(current, spec)));
        return loaded;
    }

    /** After any committed change to any spec. */
    void invalidate() {
        generation.incrementAndGet();
        entries.clear();
    }
}

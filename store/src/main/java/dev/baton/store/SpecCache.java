package dev.baton.store;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * Specs by id for the dispatcher's hand-out, which reads the job's spec on every claim (issue
 * 13), and by the slug or uuid a submission names (one read per submission, issue 46). Every spec write through the store {@link #invalidate}s after its commit. An entry is
 * tagged with the generation current when its read began and served only while that generation
 * still is: a read that raced a write (began before its commit, stored after its invalidation)
 * can never be served afterwards.
 */
final class SpecCache {
    private record Entry(long generation, Spec spec) {}

    private final AtomicLong generation = new AtomicLong();
    private final Map<Long, Entry> entries = new ConcurrentHashMap<>();
    /** The same by slug or uuid as written in a request (a submission names its spec so: issue 46). */
    private final Map<String, Entry> byReference = new ConcurrentHashMap<>();

    Optional<Spec> get(long id, LongFunction<Optional<Spec>> load) {
        long current = generation.get();
        Entry e = entries.get(id);
        if (e != null && e.generation() == current) return Optional.of(e.spec());
        Optional<Spec> loaded = load.apply(id);
        loaded.ifPresent(spec -> entries.put(id, new Entry(current, spec)));
        return loaded;
    }

    /**
     * The spec a request names by slug or uuid ({@code reference}), under the same rule as by id:
     * what a read that began in the current generation found, and nothing that is missing.
     */
    Optional<Spec> get(String reference, java.util.function.Supplier<Optional<Spec>> load) {
        long current = generation.get();
        Entry e = byReference.get(reference);
        if (e != null && e.generation() == current) return Optional.of(e.spec());
        Optional<Spec> loaded = load.get();
        loaded.ifPresent(spec -> byReference.put(reference, new Entry(current, spec)));
        return loaded;
    }

    /** After any committed change to any spec. */
    void invalidate() {
        generation.incrementAndGet();
        entries.clear();
        byReference.clear();
    }
}

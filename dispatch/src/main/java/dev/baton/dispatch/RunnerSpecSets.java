package dev.baton.dispatch;

import dev.baton.store.Spec;
import dev.baton.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The specs each runner serves, which every {@code ready} needs (issue 13; before, one read of
 * the store per ready). Kept per runner on this node and dropped, all at once, whenever specs or
 * runner specs change: through this node's store at once ({@link dev.baton.store.Specs#onSpecsChange}), on
 * another node when its notification arrives over the cluster bus, and after the bus's listener
 * reconnected. What no notification tells (a lost one, or a process writing the database without
 * a bus) is read again once an entry is {@link #MAX_AGE} old: a change is late, never lost
 * (docs/decisions/0018-runner-spec-sets-cached.md).
 *
 * <p>An entry is tagged with the generation current when its read began and served only while
 * that generation still is, so a read that raced an invalidation (began before the change,
 * stored after the drop) is never served.
 */
public final class RunnerSpecSets {
    /** The longest a change can stay unseen when its notification was lost. */
    public static final Duration MAX_AGE = Duration.ofSeconds(10);

    /** A runner's specs as read, and the ids of those not archived (what a plain runner's wait uses). */
    private record Entry(long generation, Instant read, List<Spec> specs, Set<Long> activeIds) {}

    private final Store store;
    private final Clock clock;
    private final AtomicLong generation = new AtomicLong();
    private final Map<Long, Entry> entries = new ConcurrentHashMap<>();

    public RunnerSpecSets(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Every spec the runner serves, archived ones included (ordered as the store orders them). */
    public List<Spec> of(long runnerId) {
        return entry(runnerId).specs();
    }

    /** The ids of the runner's specs that are not archived (immutable). */
    public Set<Long> activeIds(long runnerId) {
        return entry(runnerId).activeIds();
    }

    /** Specs or runner specs changed (here or on another node): every runner's set is read again. */
    public void invalidate() {
        generation.incrementAndGet();
        entries.clear();
    }

    private Entry entry(long runnerId) {
        long current = generation.get();
        Instant now = clock.instant();
        Entry e = entries.get(runnerId);
        if (e != null
                && e.generation() == current
                && !now.isBefore(e.read())
                && now.isBefore(e.read().plus(MAX_AGE))) return e;
        List<Spec> specs = List.copyOf(store.specs().runnerSpecs(runnerId));
        Set<Long> active = new HashSet<>();
        for (Spec spec : specs) if (spec.archived() == null) active.add(spec.id());
        Entry read = new Entry(current, now, specs, Set.copyOf(active));
        entries.put(runnerId, read);
        return read;
    }
}

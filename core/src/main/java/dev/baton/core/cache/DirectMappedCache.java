package dev.baton.core.cache;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A small lock-free cache of values by a {@code long} id, direct-mapped: slot {@code id mod size}
 * holds the last value put there, with its id, so a lookup is one array read and one comparison
 * and never answers for another id. A value whose slot a later id took is simply gone (the caller
 * reads or computes it again); there is no eviction order, no lock and no allocation but the entry.
 *
 * <p>For values that never change for an id (a job's config, a report's format: issue 13), so an
 * entry never needs invalidation. Values are shared between threads as they are: they must be immutable.
 */
public final class DirectMappedCache<V> {
    private record Entry<V>(long id, V value) {}

    private final AtomicReferenceArray<Entry<V>> slots;
    private final int mask;

    /** @param size slots, a power of two */
    public DirectMappedCache(int size) {
        if (size <= 0 || Integer.bitCount(size) != 1) throw new IllegalArgumentException("size must be a power of two");
        this.slots = new AtomicReferenceArray<>(size);
        this.mask = size - 1;
    }

    /** The value last put for {@code id} if its slot still holds it, else null. */
    public V get(long id) {
        Entry<V> e = slots.get(slot(id));
        return e != null && e.id() == id ? e.value() : null;
    }

    /** Makes {@code value} the answer for {@code id}, in place of whatever shared its slot. */
    public void put(long id, V value) {
        slots.set(slot(id), new Entry<>(id, value));
    }

    private int slot(long id) {
        return (int) (id & mask);
    }
}

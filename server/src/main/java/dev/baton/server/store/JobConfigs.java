package dev.baton.server.store;

import dev.baton.protocol.model.JobConfig;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A job's config JSON parsed once per job, not on every read of its row (issue 13): a job's row
 * is read about five times in its life (insert, claim, running, completed, processed, each
 * RETURNING the row) and its config never changes, but parsing it was most of Jackson's share of
 * the server's CPU.
 *
 * <p>Keyed by the job's id, so it helps every workload, not only one where all jobs share a
 * config: each in-flight job has its own slot. Direct-mapped and lock-free: slot {@code id mod
 * size} holds the last job parsed there; a job whose slot was taken by a later one is parsed
 * again. A hit also requires the same JSON text (a cheap comparison of the string read anyway),
 * so a slot never answers with another row's config, whatever database or store the id came from.
 * Parsed configs are shared between reads and threads: {@link JobConfig} is immutable (its lists and map are unmodifiable copies).
 */
final class JobConfigs {
    private record Entry(long jobId, String json, JobConfig config) {}

    private final AtomicReferenceArray<Entry> slots;
    private final int mask;

    /** @param size slots, a power of two; more than the jobs usually in flight at once */
    JobConfigs(int size) {
        if (Integer.bitCount(size) != 1) throw new IllegalArgumentException("size must be a power of two");
        this.slots = new AtomicReferenceArray<>(size);
        this.mask = size - 1;
    }

    JobConfig config(long jobId, String json) {
        int slot = (int) (jobId & mask);
        Entry e = slots.get(slot);
        if (e != null && e.jobId() == jobId && e.json().equals(json)) return e.config();
        JobConfig parsed = Rows.config(json);
        slots.set(slot, new Entry(jobId, json, parsed));
        return parsed;
    }
}

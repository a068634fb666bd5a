package dev.baton.store;

import dev.baton.core.cache.DirectMappedCache;
import dev.baton.protocol.model.JobConfig;

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
    /** What a slot keeps: the JSON text too, for the check that a hit is this row's config. */
    private record Parsed(String json, JobConfig config) {}

    private final DirectMappedCache<Parsed> parsed;

    /** @param size slots, a power of two; more than the jobs usually in flight at once */
    JobConfigs(int size) {
        this.parsed = new DirectMappedCache<>(size);
    }

    JobConfig config(long jobId, String json) {
        Parsed hit = parsed.get(jobId);
        if (hit != null && hit.json().equals(json)) return hit.config();
        JobConfig config = Rows.config(json);
        parsed.put(jobId, new Parsed(json, config));
        return config;
    }
}

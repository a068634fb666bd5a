package dev.baton.store;

import dev.baton.protocol.id.JobUuid;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Job heartbeat times a liveness write left for the next one because another transaction held
 * the job's row (PostgreSQL: {@code SKIP LOCKED}, docs/decisions/0021-postgresql-per-job-cost.md).
 * A liveness write that waited for such rows held the rows it had already updated meanwhile, so
 * transitions of those jobs queued behind it and the two deadlocked, for a second each. The next
 * write carries these times with its own, the later time of a job winning, so a heartbeat is
 * written one flush later instead of never. A job that is no longer in flight by then is dropped.
 */
final class SkippedHeartbeats {
    private final ConcurrentHashMap<JobUuid, Instant> times = new ConcurrentHashMap<>();

    /** The times to write now: {@code fresh} and everything left by the last write, the later per job. */
    Map<JobUuid, Instant> takeWith(Map<JobUuid, Instant> fresh) {
        if (times.isEmpty()) return fresh;
        Map<JobUuid, Instant> due = new HashMap<>(fresh);
        for (var e : times.entrySet()) {
            if (times.remove(e.getKey(), e.getValue())) due.merge(e.getKey(), e.getValue(), SkippedHeartbeats::later);
        }
        return due;
    }

    /** Keeps the times of {@code skipped} (keys of {@code due}) for the next write. */
    void keep(Map<JobUuid, Instant> due, Set<JobUuid> skipped) {
        for (JobUuid job : skipped) times.merge(job, due.get(job), SkippedHeartbeats::later);
    }

    int size() {
        return times.size();
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}

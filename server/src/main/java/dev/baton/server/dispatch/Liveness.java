package dev.baton.server.dispatch;

import dev.baton.protocol.id.JobUuid;
import dev.baton.server.store.Store;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Heartbeats are cheap (brief §3): they land in memory, and {@link #flush} writes the latest
 * time per job and per runner in two batched statements, instead of one write per heartbeat.
 */
public final class Liveness {
    private final ConcurrentHashMap<JobUuid, Instant> jobs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Instant> runners = new ConcurrentHashMap<>();

    public void job(JobUuid job, Instant at) {
        jobs.put(job, at);
    }

    public void runner(long runnerId, Instant at) {
        runners.put(runnerId, at);
    }

    /** Writes what arrived since the last flush; an entry updated during the flush stays for the next. */
    public void flush(Store store) {
        Map<JobUuid, Instant> jobBatch = drain(jobs);
        Map<Long, Instant> runnerBatch = drain(runners);
        if (!jobBatch.isEmpty()) store.recordJobHeartbeats(jobBatch);
        if (!runnerBatch.isEmpty()) store.recordRunnerHeartbeats(runnerBatch);
    }

    private static <K> Map<K, Instant> drain(ConcurrentHashMap<K, Instant> source) {
        Map<K, Instant> batch = new HashMap<>();
        for (var e : source.entrySet()) {
            if (source.remove(e.getKey(), e.getValue())) batch.put(e.getKey(), e.getValue());
        }
        return batch;
    }
}

package dev.baton.dispatch;

import dev.baton.protocol.id.JobUuid;
import dev.baton.store.Store;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Heartbeats are cheap (brief §3): they land in memory, and {@link #flush} writes, in one
 * transaction per node and flush, the node's own heartbeat and the latest time per job and per
 * runner (one batched statement each), instead of one write per heartbeat.
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

    /**
     * Writes what arrived since the last flush with the node's heartbeat; an entry updated during
     * the flush stays for the next. False when the store no longer counts the node as alive.
     */
    public boolean flush(Store store, String node, Instant now) {
        Map<JobUuid, Instant> jobBatch = drain(jobs);
        Map<Long, Instant> runnerBatch = drain(runners);
        return store.nodes().recordLiveness(node, now, jobBatch, runnerBatch);
    }

    private static <K> Map<K, Instant> drain(ConcurrentHashMap<K, Instant> source) {
        Map<K, Instant> batch = new HashMap<>();
        for (var e : source.entrySet()) {
            if (source.remove(e.getKey(), e.getValue())) batch.put(e.getKey(), e.getValue());
        }
        return batch;
    }
}

package dev.baton.dispatch;

import dev.baton.protocol.id.JobUuid;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** In-flight attempts by job, the source of truth for heartbeats between database flushes. */
public final class ActiveJobs {
    private final ConcurrentHashMap<JobUuid, ActiveJob> byJob = new ConcurrentHashMap<>();

    public void put(ActiveJob job) {
        byJob.put(job.job, job);
    }

    public Optional<ActiveJob> get(JobUuid job) {
        return Optional.ofNullable(byJob.get(job));
    }

    /** Removes the entry only if it is still this attempt, so a newer attempt is never dropped. */
    public void remove(ActiveJob attempt) {
        byJob.remove(attempt.job, attempt);
    }

    public List<ActiveJob> ofRunner(long runnerId) {
        return byJob.values().stream().filter(j -> j.runnerId == runnerId).toList();
    }

    public List<ActiveJob> all() {
        return List.copyOf(byJob.values());
    }

    public int size() {
        return byJob.size();
    }
}

package dev.baton.server.store;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The store's Open Job Spec part (docs/ojs.md): OJS jobs, their event log, paused queues and
 * cron schedules. Every change to a job or schedule is a compare-and-set on its version.
 * Reached through {@link Store#ojs()}.
 */
public interface OjsStore {

    /** Inserts an OJS job; false (nothing written) when its id exists. */
    boolean insertJob(OjsRow row, Instant now);

    Optional<OjsRow> findJob(String id);

    /**
     * Writes {@code next} over the job if its version is still {@code next.version()}; the stored
     * version becomes one more. False, nothing written, when another change came first.
     */
    boolean updateJob(OjsRow next, Instant now);

    /** Jobs of one queue in this state, in fetch order (priority descending, then enqueue order). */
    List<OjsRow> jobs(String queue, String state, int limit);

    /** Jobs in any of these states, any queue, in enqueue order (dead letter list). */
    List<OjsRow> jobsInStates(Collection<String> states, int limit);

    /** Waiting jobs whose run_at has come and active jobs whose deadline has passed. */
    List<OjsRow> dueJobs(Instant now, int limit);

    /** Deletes an OJS job if its version is still {@code version}. */
    boolean deleteJob(String id, long version);

    /** Job counts by queue, then by state. */
    Map<String, Map<String, Long>> counts();

    void appendEvent(String type, String queue, String jobId, String data, Instant now);

    /** The newest events first, filtered by type and queue when the sets are non-empty. */
    List<OjsEvent> events(Collection<String> types, Collection<String> queues, int limit);

    void setQueuePaused(String queue, boolean paused);

    Set<String> pausedQueues();

    /** Creates or replaces the cron schedule of this name (its version starts again). */
    void putCron(OjsCron cron, Instant now);

    List<OjsCron> crons();

    /** Deletes the schedule; false when there was none. */
    boolean deleteCron(String name);

    /** Compare-and-set of one schedule (next run and document); false when another change came first. */
    boolean updateCron(OjsCron next);
}

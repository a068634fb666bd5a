package dev.baton.store;

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

    /** A queue's rate limit as a pushed job carries it: at most {@code max} jobs handed out per {@code window}. */
    record RateLimit(int max, java.time.Duration window) {}

    /** Inserts an OJS job; false (nothing written) when its id exists. */
    default boolean insertJob(OjsRow row, Instant now) {
        return insertJob(row, null, now);
    }

    /**
     * Inserts an OJS job and, in the same transaction, sets its queue's rate limit to {@code rate}
     * (null: leaves the limit as it is), so no fetch sees the job without the limit it came with.
     * False, nothing written (the limit neither), when its id exists.
     */
    boolean insertJob(OjsRow row, RateLimit rate, Instant now);

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

    // ---- levels 3 and 4, graceful shutdown ---------------------------------------------------

    /** The jobs of these ids that exist, in no particular order. */
    List<OjsRow> jobsById(Collection<String> ids);

    /**
     * Inserts the job unless another job conflicts with its unique policy: then nothing is written
     * and the conflicting job is returned (the oldest), or, with {@link OjsUnique#replace()}, the
     * conflicting job is cancelled and the new one inserted in one transaction. Pushes of one key
     * check one after the other, on every node. An existing id is a {@link StoreException.Reason#CONFLICT}.
     */
    default Optional<OjsRow> insertUnique(OjsRow row, OjsUnique unique, Instant now) {
        return insertUnique(row, unique, null, now);
    }

    /** {@link #insertUnique(OjsRow, OjsUnique, Instant)} that sets the queue's rate limit with the job it inserts (null: leaves it). */
    Optional<OjsRow> insertUnique(OjsRow row, OjsUnique unique, RateLimit rate, Instant now);

    /**
     * Deletes the lock rows of unique keys last pushed before {@code before}; returns how many. Only
     * the lock goes: conflicts are found among the jobs, and the next push of a key makes its row again.
     */
    int pruneUniqueKeys(Instant before);

    /** The oldest job that conflicts with {@code unique} now, if any (a read: {@link #insertUnique} decides). */
    Optional<OjsRow> uniqueConflict(OjsUnique unique);

    /** Inserts a new workflow and the jobs it enqueues at once, in one transaction. */
    void insertWorkflow(OjsWorkflow workflow, List<OjsRow> jobs, Instant now);

    Optional<OjsWorkflow> findWorkflow(String id);

    /**
     * Writes {@code next} over the workflow if its version is still {@code next.version()} and
     * inserts {@code newJobs}, in one transaction; false, nothing written, when another advance
     * (another request or server node) came first.
     */
    boolean advanceWorkflow(OjsWorkflow next, List<OjsRow> newJobs, Instant now);

    /** Workflows in this state whose id is after {@code afterId} (null: from the first), in id order (UUIDv7: creation order). */
    List<OjsWorkflow> workflowsInState(String state, String afterId, int limit);

    /** Sets (or, with {@code max} null, removes) the queue's rate limit: at most {@code max} jobs handed out per {@code window}. */
    void setQueueRateLimit(String queue, Integer max, java.time.Duration window);

    /** Queues that have a rate limit. */
    Set<String> rateLimitedQueues();

    /**
     * Takes one slot of the queue's rate limit in the window {@code now} falls in (fixed windows,
     * the first starting at the first hand-out); false when the window's slots are spent. A queue
     * without a limit always has a slot. Atomic across nodes (conditional single-row updates).
     */
    boolean takeRateSlot(String queue, Instant now);

    /** Records a worker's beat (creates or replaces its row). */
    void putWorker(OjsWorker worker);

    Optional<OjsWorker> findWorker(String id);

    /** Registers a worker (issue 47): all its columns, its directive cleared, whether or not it was known. */
    void registerWorker(OjsWorker worker);

    /** Every worker, registered or known from beats, by id. */
    List<OjsWorker> workers();

    /**
     * Sets the state an operator directs ({@code quiet}, {@code terminate}, null for none); false
     * for an unknown or terminated worker.
     */
    boolean directWorker(String id, String directive);

    /** Registered workers not terminated whose last beat is older than their heartbeat timeout at {@code now}. */
    List<OjsWorker> silentWorkers(Instant now);

    /**
     * Marks the worker terminated if its row is still as read ({@code lastBeat} and state unchanged):
     * a beat that arrives meanwhile wins. The new document replaces the old one.
     */
    boolean terminateWorker(OjsWorker seen, String document);

    /** The worker's jobs in {@code state} (its reservations when {@code active}). */
    List<OjsRow> jobsOfWorker(String workerId, String state);
}

package dev.baton.store;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The store's part for jobs in flight: batched heartbeats, billed minutes, the durable
 * deadlines (acceptance, cancel, lost) and the sweep that acts on those due, and what a
 * restart re-reads.
 */
public interface JobLiveness {
    /**
     * The runner is still preparing (seed 004's keep-alive): the acceptance deadline moves to
     * {@code until}. False when the job is not claimed under {@code lease} any more.
     */
    boolean extendAcceptance(JobUuid job, LeaseId lease, Instant until);

    /** The runner answered the cancel: no deadline is pending for this attempt any more. */
    void clearCancelDeadline(JobUuid job, LeaseId lease);

    /** Batched liveness of jobs: sets last_heartbeat where the job is still in flight. */
    void recordJobHeartbeats(Map<JobUuid, Instant> lastSeen);

    /** Raises last_billed_minute to {@code minute} if lower; returns the minutes newly billed (0 if none). */
    int billMinutes(JobUuid job, int minute, Instant now);

    /** Minutes billed per organization, summed over its jobs. */
    long billedMinutes(long organizationId);

    /**
     * Minutes billed to the organization's jobs in {@code [from, to)}, per project (only projects
     * with minutes in the period, by project id): a minute counts in the period in which it was
     * billed (issue 41).
     */
    List<ProjectMinutes> billedMinutes(long organizationId, Instant from, Instant to);

    /** Jobs in claimed or running, for deadlines after a restart. */
    List<Job> inFlightJobs();

    /**
     * Completed jobs not yet processed whose report has no adapter error, to process again after
     * a restart. A job whose output did not parse stays completed with the error on its report
     * and is not tried again (the same output would fail the same way on every restart).
     */
    List<Job> completedUnprocessedJobs();

    /**
     * Runs {@code act} on each job whose {@code deadline} is due at {@code now} (at most
     * {@code limit}), in one write transaction with the row locked ({@code FOR UPDATE SKIP
     * LOCKED} on PostgreSQL; SQLite's single writer serializes), so that of several nodes
     * sweeping at once exactly one acts on each job. {@code act} runs inside that transaction: it
     * may call this store's transitions (they join it) but must leave messages and other effects
     * to what it returns, run after the commit.
     */
    <R> List<R> sweepDue(Deadline deadline, Instant now, int limit, java.util.function.Function<Job, R> act);

    /**
     * The runner spoke of this attempt (on a new channel, perhaps on another node): a pending
     * lost deadline is dropped. The job as it is when still in flight under {@code lease}, else empty.
     */
    Optional<Job> reattach(JobUuid job, LeaseId lease);
}

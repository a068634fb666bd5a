package dev.baton.server.store;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Baton's durable state. One interface, one implementation per SQL dialect (SQLite, PostgreSQL),
 * both held to the same contract tests. Every job state change is a compare-and-set on the
 * expected status (and lease, where one is given); zero rows means re-read and classify, reported
 * as a {@link Transition}. Times are passed in so that an injected clock drives everything.
 */
public interface Store extends AutoCloseable {

    // ---- runs: reports and jobs --------------------------------------------------------------

    /** Direct mode: a report with results, no job. */
    Report createReport(NewReport report, Instant now);

    /**
     * Runner mode: report and pending job in one transaction. {@code job.sourceIp()} and
     * {@code job.config()} are required; a null {@code job.retry()} means {@link RetryPolicy#NONE}.
     */
    CreatedRun createRun(NewReport report, NewJob job, long organizationId, Instant now);

    Optional<Report> findReport(long id);

    /**
     * The adapter and results file of report {@code id} (result processing, once per job). They
     * never change, so a store may answer from memory (JdbcStore does for the reports it created).
     */
    default Optional<ReportFormat> reportFormat(long id) {
        return findReport(id).map(ReportFormat::of);
    }

    Optional<Report> findReport(ReportUuid uuid);

    Optional<Job> findJob(JobUuid uuid);

    /** The job of a runner run's report (seed 001: one job per report); empty for a direct run. */
    Optional<Job> findJobOfReport(long reportId);

    List<Job> listJobs(long projectId, JobFilter filter);

    Optional<Attempt> findAttempt(long jobId, int number);

    List<Attempt> attempts(long jobId);

    /** The output attempt {@code attempt} of {@code job} keeps on its row (small output, see {@link #complete(JobUuid, LeaseId, Instant, byte[])}); empty when it keeps none. */
    Optional<byte[]> attemptOutput(JobUuid job, int attempt);

    /**
     * Stores the runner's machine fingerprint (JSON) on the attempt holding {@code lease}; false
     * when no attempt of the job has that lease. Only the attempt's runner says it, under its lease.
     */
    boolean recordFingerprint(JobUuid job, LeaseId lease, String fingerprint);

    // ---- dispatch and lifecycle (compare-and-set) -------------------------------------------

    /** The labels a job requires and prefers (docs/scheduling.md, "Label routing"). */
    JobLabels jobLabels(long jobId);

    /**
     * Atomically claims the best eligible pending job for this runner: spec among the runner's
     * specs, not declined by this runner before, ordered priority DESC, created ASC, id ASC,
     * with the tier limits of seed 001 (≥200 unlimited; 100–199 none other in flight for the
     * organization; &lt;100 none other in flight for the source IP). "Declined before" counts
     * only declines of the current round: once every runner of the spec has declined, the job
     * rests for the decline back-off ({@code decline_backoff_until}; runners that never declined
     * may still take it) and then every runner may try again. Sets status claimed, runner,
     * lease, attempt+1, claimed and last_heartbeat = now, and opens an attempt record. Never
     * hands one job to two callers, on either dialect.
     */
    default Optional<Job> claim(long runnerId, LeaseId lease, Instant now) {
        return claim(runnerId, lease, now, now.plus(DEFAULT_ACCEPTANCE_TIMEOUT), ClaimFilter.NONE);
    }

    /** The claim with its acceptance deadline ({@code accept_deadline}), written in the claim's transaction. */
    default Optional<Job> claim(long runnerId, LeaseId lease, Instant now, Instant acceptUntil) {
        return claim(runnerId, lease, now, acceptUntil, ClaimFilter.NONE);
    }

    /** {@link #claim(long, LeaseId, Instant)} narrowed and ordered by a router's {@code filter}. */
    default Optional<Job> claim(long runnerId, LeaseId lease, Instant now, ClaimFilter filter) {
        return claim(runnerId, lease, now, now.plus(DEFAULT_ACCEPTANCE_TIMEOUT), filter);
    }

    /**
     * The claim with its acceptance deadline ({@code accept_deadline}, written in the claim's
     * transaction), narrowed and ordered by a router's {@code filter} ({@link ClaimFilter#NONE}: any job of the runner's specs).
     */
    Optional<Job> claim(long runnerId, LeaseId lease, Instant now, Instant acceptUntil, ClaimFilter filter);

    /**
     * Claims for several waiting runners in <em>one</em> write transaction (issue 13): for each
     * request in order, up to its slots jobs, each exactly as {@link #claim} would claim it (same
     * candidates, order, tier limits and atomicity; each claim sees the ones before it). Returns,
     * per request and in request order, the jobs claimed (each with its own new lease). Once a
     * request finds nothing, later requests with the same spec set are not tried, unless its empty
     * answer was its own: it declined jobs, it is archived or quarantined, or a pending job of the
     * set requires labels.
     */
    List<List<Job>> claimEach(List<ClaimRequest> requests, Instant now, Instant acceptUntil);

    Duration DEFAULT_ACCEPTANCE_TIMEOUT = Duration.ofSeconds(30);
    Duration DEFAULT_JOB_TIMEOUT_GRACE = Duration.ofSeconds(60);
    Duration DEFAULT_CANCEL_DEADLINE = Duration.ofSeconds(30);

    /**
     * The runner is still preparing (seed 004's keep-alive): the acceptance deadline moves to
     * {@code until}. False when the job is not claimed under {@code lease} any more.
     */
    boolean extendAcceptance(JobUuid job, LeaseId lease, Instant until);

    /** claimed → running under {@code lease}; sets started. Running already under the same lease: DUPLICATE. */
    default Transition start(JobUuid job, LeaseId lease, Instant now) {
        return start(job, lease, now, DEFAULT_JOB_TIMEOUT_GRACE);
    }

    /** The start with its hard deadline ({@code started + timeout + grace}) written in the same transaction. */
    Transition start(JobUuid job, LeaseId lease, Instant now, Duration grace);

    /**
     * claimed → pending under {@code lease} (decline, acceptance timeout, lost before start):
     * closes the attempt with {@code outcome}, clears runner and lease, requeues+1. When requeues
     * would exceed {@code maxRequeues} the job is failed instead, with a reason saying so.
     * {@code outcome} is DECLINED, ACCEPT_TIMEOUT or LOST_BEFORE_START. The same requeue resent
     * under the old lease is DUPLICATE. Without a decline back-off: see the full form.
     */
    default Transition requeue(JobUuid job, LeaseId lease, AttemptOutcome outcome, int maxRequeues, Instant now) {
        return requeue(job, lease, outcome, null, maxRequeues, DEFAULT_DECLINE_BACKOFF, now);
    }

    Duration DEFAULT_DECLINE_BACKOFF = Duration.ofSeconds(30);

    /**
     * The full requeue. A DECLINED attempt stores {@code decline} (code and reason) on its
     * attempt record; the runner is not offered the job again until the job's next back-off. When
     * with this decline every non-archived runner serving the job's spec has declined in the
     * current round, the job gets {@code decline_backoff_until = now + declineBackoff}: after it,
     * every runner may try again (a decline may be transient). Running out of requeues after a decline fails
     * the job with error_code {@code declined} and every runner's last reason in the error.
     */
    Transition requeue(JobUuid job, LeaseId lease, AttemptOutcome outcome, Decline decline, int maxRequeues, Duration declineBackoff,
            Instant now);

    /**
     * pending → failed with error_code {@code queue_timeout} and {@code error}, only while the job
     * is pending (a claimed job is not taken from its runner). CONFLICT when it is not pending.
     */
    Transition expireQueued(JobUuid job, String error, Instant now);

    /** {claimed, running, failed} → completed under {@code lease}; completed already: DUPLICATE. */
    default Transition complete(JobUuid job, LeaseId lease, Instant now) {
        return complete(job, lease, now, null);
    }

    /**
     * As {@link #complete(JobUuid, LeaseId, Instant)}, and when applied the attempt of {@code lease}
     * keeps {@code output} (the encoded output, or null when it is stored elsewhere) in the same
     * transaction: a refused transition stores nothing (docs/decisions/0034-small-output-on-the-attempt.md).
     */
    Transition complete(JobUuid job, LeaseId lease, Instant now, byte[] output);

    /**
     * {claimed, running} → failed under {@code lease} with an error; failed already: DUPLICATE.
     * If the job opted in to retries and has attempts left (outcome FAILED, or LOST with
     * retry_when_runner_lost), the same transaction sends it on to pending (RETRY): the result
     * is APPLIED with a PENDING job, lease cleared, claimable after the backoff.
     */
    default Transition fail(JobUuid job, LeaseId lease, String error, AttemptOutcome outcome, Instant now) {
        return fail(job, lease, error, outcome, now, null);
    }

    /** As {@link #fail(JobUuid, LeaseId, String, AttemptOutcome, Instant)}, the attempt keeping {@code output} as {@link #complete(JobUuid, LeaseId, Instant, byte[])} does. */
    Transition fail(JobUuid job, LeaseId lease, String error, AttemptOutcome outcome, Instant now, byte[] output);

    /**
     * → canceled. With a lease (runner acknowledgment, hard timeout): only under that lease.
     * Without (user cancel): from pending, claimed or running. Canceled already: DUPLICATE.
     */
    default Transition cancel(JobUuid job, LeaseId lease, String reason, Instant now) {
        return cancel(job, lease, reason, now, lease == null ? now.plus(DEFAULT_CANCEL_DEADLINE) : null);
    }

    /**
     * The cancel; a job canceled while in flight also gets {@code cancel_deadline =
     * cancelDeadline} (null: none, e.g. the runner's own {@code canceled}) in the same transaction:
     * by then its runner must have answered, or it is told its lease is gone.
     */
    Transition cancel(JobUuid job, LeaseId lease, String reason, Instant now, Instant cancelDeadline);

    /** The runner answered the cancel: no deadline is pending for this attempt any more. */
    void clearCancelDeadline(JobUuid job, LeaseId lease);

    /** completed → processed, writing the adapter's results and the job's real times to the report (clearing any error). */
    Transition process(JobUuid job, String results, Instant now);

    /**
     * The output of a completed job did not parse: writes what did parse ({@code results}, may
     * be null), the {@code error} and the job's real times to the report; the job stays
     * completed (seed 001). APPLIED (with the unchanged job) when the job is completed; otherwise
     * nothing is written and the job is classified (processed: DUPLICATE).
     */
    Transition recordAdapterError(JobUuid job, String results, String error, Instant now);

    /** Batched liveness of jobs: sets last_heartbeat where the job is still in flight. */
    void recordJobHeartbeats(Map<JobUuid, Instant> lastSeen);

    /** Raises last_billed_minute to {@code minute} if lower; returns the minutes newly billed (0 if none). */
    int billMinutes(JobUuid job, int minute, Instant now);

    /** Minutes billed per organization, summed over its jobs. */
    long billedMinutes(long organizationId);

    /** Jobs in claimed or running, for deadlines after a restart. */
    List<Job> inFlightJobs();

    /**
     * Completed jobs not yet processed whose report has no adapter error, to process again after
     * a restart. A job whose output did not parse stays completed with the error on its report
     * and is not tried again (the same output would fail the same way on every restart).
     */
    List<Job> completedUnprocessedJobs();


    /** Pending jobs that have a queue timeout, to re-arm their deadlines after a restart. */
    List<Job> pendingJobsWithQueueTimeout();

    /** Every pending job, in dispatch order (metrics: pending jobs by reason). */
    List<Job> pendingJobs();

    /** The queue facts of one pending job (see {@link PendingFacts}), every serving runner listed; {@code recentRuns} bounds the run times read. */
    default PendingFacts pendingFacts(Job job, int recentRuns) {
        return pendingFacts(job, recentRuns, null);
    }

    /**
     * As {@link #pendingFacts(Job, int)}, but serving runners that are not quarantined and whose
     * last heartbeat is at or after {@code freshSince} are only counted ({@link PendingFacts#freshServing}),
     * not listed; {@code null} lists every one.
     */
    PendingFacts pendingFacts(Job job, int recentRuns, Instant freshSince);

    /** True when some pending job could match one of these runners' specs (cheap wake-up check). */
    boolean hasPendingFor(Collection<Long> specIds);

    /**
     * The image of the job a {@link #claim} by this runner with {@code filter} would take now, read
     * without claiming (image affinity: the dispatcher asks before letting a warm runner go first).
     * Empty when nothing is claimable or the job has no image. Advice only: a claim right after
     * may take another job if the queue changed meanwhile.
     */
    java.util.Optional<dev.baton.protocol.value.ImageDigest> nextImage(long runnerId, Instant now, ClaimFilter filter);

    // ---- cluster: durable deadlines, nodes (docs/decisions/0006-cluster.md) ---------------

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

    /** The Open Job Spec binding's jobs, events, queues and cron schedules (docs/ojs.md). */
    OjsStore ojs();

    /** Leases offered on a broker (transport A, docs/protocol.md): the outbox and each offer's state. */
    LeaseOffers leaseOffers();

    /** Users, memberships, API tokens and the audit log (docs/api.md, "Access"). */
    AccessStore access();

    /** Thresholds, judged metrics with their boundaries, alerts and branch start points (docs/alerts.md). */
    AlertStore alerts();

    /** Schedules: runs submitted on a cron (docs/api.md, "Schedules"). */
    Schedules schedules();

    /** The OCI registry's upload sessions (docs/registry.md). */
    RegistryUploads uploads();

    /** Server nodes and which runner's channel each holds (docs/decisions/0006-cluster.md). */
    Nodes nodes();

    /** Organizations, their plans and their projects. */
    Organizations organizations();

    /** Specs (the machines jobs ask for) and which specs each runner serves. */
    Specs specs();

    /** Runners: their keys, labels, heartbeats and quarantine. */
    Runners runners();







    @Override
    void close();
}

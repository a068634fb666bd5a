package dev.baton.store;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ReportUuid;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The store's part for runs: reports (direct mode) and reports with their job (runner mode),
 * the jobs' attempts, and the pending queue as dispatch and metrics read it.
 */
public interface Runs {
    /** Direct mode: a report with results, no job. */
    Report createReport(NewReport report, Instant now);

    /**
     * Runner mode: report and pending job in one transaction. {@code job.sourceIp()} and
     * {@code job.config()} are required; a null {@code job.retry()} means {@link RetryPolicy#NONE}.
     */
    CreatedRun createRun(NewReport report, NewJob job, long organizationId, Instant now);

    /**
     * As {@link #createRun}, and in the same transaction (one commit) the claim {@link
     * Claims#claimEach} would make for {@code claim}'s runner, up to its slots: dispatch in one
     * commit when a runner of the spec waits (decision 0063). The claim takes what the claim order
     * puts first for that runner (usually the new job; an older pending job first, if there is one
     * it may take) with the same fencing, tier limits and labels as any claim, and {@link
     * ClaimedRun#claimed} lists it; a job it did not take stays pending, as after {@code createRun}.
     */
    ClaimedRun createRunAndClaim(
            NewReport report, NewJob job, long organizationId, Instant now, ClaimRequest claim, Instant acceptUntil);

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

    /** By its row id, for rows that point at a job by id (a pool machine's job). */
    Optional<Job> findJob(long id);

    /** The job of a runner run's report (seed 001: one job per report); empty for a direct run. */
    Optional<Job> findJobOfReport(long reportId);

    List<Job> listJobs(long projectId, JobFilter filter);

    Optional<Attempt> findAttempt(long jobId, int number);

    List<Attempt> attempts(long jobId);

    /** How each failed attempt of the job was judged, by attempt number (issue 41); attempts that did not fail are absent. */
    Map<Integer, AttemptEnd> attemptEnds(long jobId);

    /** The job's retry policy as submitted (the older form mapped onto {@code on}); empty when there is no such job. */
    Optional<RetryPolicy> retryPolicy(long jobId);

    /** The output attempt {@code attempt} of {@code job} keeps on its row (small output, see {@link Transitions#complete(JobUuid, LeaseId, Instant, byte[])}); empty when it keeps none. */
    Optional<byte[]> attemptOutput(JobUuid job, int attempt);

    /**
     * Stores the runner's machine fingerprint (JSON) on the attempt holding {@code lease}; false
     * when no attempt of the job has that lease. Only the attempt's runner says it, under its lease.
     */
    boolean recordFingerprint(JobUuid job, LeaseId lease, String fingerprint);

    /** The labels a job requires and prefers (docs/scheduling.md, "Label routing"). */
    JobLabels jobLabels(long jobId);

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
}

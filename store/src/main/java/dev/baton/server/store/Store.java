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

    Duration DEFAULT_DECLINE_BACKOFF = Duration.ofSeconds(30);

    /**
     * The image of the job a {@link #claim} by this runner with {@code filter} would take now, read
     * without claiming (image affinity: the dispatcher asks before letting a warm runner go first).
     * Empty when nothing is claimable or the job has no image. Advice only: a claim right after
     * may take another job if the queue changed meanwhile.
     */
    java.util.Optional<dev.baton.protocol.value.ImageDigest> nextImage(long runnerId, Instant now, ClaimFilter filter);

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

    /** Runs: reports, their jobs and attempts, and the pending queue as it is read. */
    Runs runs();

    /** Jobs in flight: heartbeats, billing, durable deadlines and their sweep. */
    JobLiveness liveness();

    /** A job's state changes after its claim, each a compare-and-set reported as a {@link Transition}. */
    Transitions transitions();










    @Override
    void close();
}

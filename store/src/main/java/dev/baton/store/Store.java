package dev.baton.store;

import java.time.Duration;

/**
 * Baton's durable state: one part per aggregate ({@link #runners()}, {@link #runs()},
 * {@link #claims()}, {@link #transitions()}, …), each an interface of its own, reached from here.
 * One implementation per SQL dialect (SQLite, PostgreSQL), both held to the same contract tests;
 * a dialect's parts share its transactions (group commit), statements and migrations. Every job
 * state change is a compare-and-set on the expected status (and lease, where one is given); zero
 * rows means re-read and classify, reported as a {@link Transition}. Times are passed in so that
 * an injected clock drives everything.
 */
public interface Store extends AutoCloseable {
    Duration DEFAULT_ACCEPTANCE_TIMEOUT = Duration.ofSeconds(30);
    Duration DEFAULT_JOB_TIMEOUT_GRACE = Duration.ofSeconds(60);
    Duration DEFAULT_CANCEL_DEADLINE = Duration.ofSeconds(30);
    Duration DEFAULT_DECLINE_BACKOFF = Duration.ofSeconds(30);

    /** Organizations, their plans and their projects. */
    Organizations organizations();

    /** Runners: their keys, labels, heartbeats and quarantine. */
    Runners runners();

    /** Fleet upgrades: rolls over runners, resumable by any node, one at a time (issue 41). */
    RunnerRolls rolls();

    /** Runner pools that follow the queue: pools, their machines, the scaler lease (issue 43). */
    Pools pools();

    /** Specs (the machines jobs ask for) and which specs each runner serves. */
    Specs specs();

    /** Runs: reports, their jobs and attempts, and the pending queue as it is read. */
    Runs runs();

    /** The claim: pending → claimed, for several waiting runners in one transaction. */
    Claims claims();

    /** A job's state changes after its claim, each a compare-and-set reported as a {@link Transition}. */
    Transitions transitions();

    /** Jobs in flight: heartbeats, billing, durable deadlines and their sweep. */
    JobLiveness liveness();

    /** Server nodes and which runner's channel each holds (docs/decisions/0006-cluster.md). */
    Nodes nodes();

    /** Schedules: runs submitted on a cron (docs/api.md, "Schedules"). */
    Schedules schedules();

    /** The OCI registry's upload sessions (docs/registry.md). */
    RegistryUploads uploads();

    /** Users, memberships, API tokens and the audit log (docs/api.md, "Access"). */
    AccessStore access();

    /** Thresholds, judged metrics with their boundaries, alerts and branch start points (docs/alerts.md). */
    AlertStore alerts();

    /** The Open Job Spec binding's jobs, events, queues and cron schedules (docs/ojs.md). */
    OjsStore ojs();

    /** Leases offered on a broker (transport A, docs/protocol.md): the outbox and each offer's state. */
    LeaseOffers leaseOffers();

    /** Stops the group commit (the batches already queued are committed) and closes the pool. */
    @Override
    void close();
}

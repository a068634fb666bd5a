package dev.baton.dispatch;

import dev.baton.core.events.Changes;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.dispatch.cluster.ClusterBus;
import dev.baton.dispatch.cluster.ClusterEvent;
import dev.baton.dispatch.logs.LiveLogs;
import dev.baton.dispatch.output.ResultProcessor;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.store.Attempt;
import dev.baton.store.Job;
import dev.baton.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every part of the {@link JobLifecycle} shares: its collaborators, and the steps that follow
 * a transition wherever it happened — this node's memory of the attempt and its wake-up timers,
 * billing, the dispatcher's and the other nodes' word, quarantine of a flaky runner. The parts
 * decide the transitions; this class only carries out what follows them, always the same way.
 */
final class LifecycleContext {
    private static final Logger LOG = LoggerFactory.getLogger(LifecycleContext.class);

    final Store store;
    final ActiveJobs active;
    final Deadlines deadlines;
    final Dispatcher dispatcher;
    final Sessions sessions;
    final Liveness liveness;
    final ResultProcessor results;
    final BatonMetrics metrics;
    final Clock clock;
    final LifecycleSettings settings;
    final LiveLogs logs;
    final PendingExplainer explainer;
    final ClusterBus bus;
    final Changes changes;
    /** The store's deadline sweep, run now (its failures logged): what this node's timers wake. */
    private final Runnable sweepSoon;

    private volatile boolean shuttingDown;

    LifecycleContext(
            Store store,
            ActiveJobs active,
            Deadlines deadlines,
            Dispatcher dispatcher,
            Sessions sessions,
            Liveness liveness,
            ResultProcessor results,
            BatonMetrics metrics,
            Clock clock,
            LifecycleSettings settings,
            LiveLogs logs,
            PendingExplainer explainer,
            ClusterBus bus,
            Changes changes,
            Runnable sweepSoon) {
        this.store = store;
        this.active = active;
        this.deadlines = deadlines;
        this.dispatcher = dispatcher;
        this.sessions = sessions;
        this.liveness = liveness;
        this.results = results;
        this.metrics = metrics;
        this.clock = clock;
        this.settings = settings;
        this.logs = logs;
        this.explainer = explainer;
        this.bus = bus;
        this.changes = changes;
        this.sweepSoon = sweepSoon;
    }

    // ---- this node acting or not ------------------------------------------------------------------

    /** Shut down, or halted by a test's crash: this node acts on nothing more and writes nothing more. */
    boolean shuttingDown() {
        return shuttingDown;
    }

    void stopActing() {
        shuttingDown = true;
    }

    void sweepQuietly() {
        sweepSoon.run();
    }

    // ---- the attempt in this node's memory -----------------------------------------------------------

    /** A timer of this node that only wakes the store's sweep (which acts if the store says the deadline is due). */
    void wakeAt(String key, Instant at) {
        deadlines.set(key, at, this::sweepQuietly);
    }

    Instant hardDeadline(ActiveJob a) {
        return a.started.plusSeconds(a.timeoutSeconds).plus(settings.jobTimeoutGrace());
    }

    void hardTimeoutWake(ActiveJob a) {
        wakeAt(DeadlineKeys.hard(a.job), hardDeadline(a));
    }

    void touch(ActiveJob a) {
        liveness.job(a.job, clock.instant());
    }

    /** Bills whole minutes of run time not billed yet (last_billed_minute prevents double counting). */
    void bill(ActiveJob a, Instant now) {
        if (a.started == null) return;
        int minute = (int) Duration.between(a.started, now).toMinutes();
        if (minute > a.lastBilledMinute) {
            int billed = store.liveness().billMinutes(a.job, minute, now);
            a.lastBilledMinute = minute;
            if (billed > 0) countMinutes(a.projectId, billed);
        }
    }

    /** The Prometheus counter of billed minutes, labelled with the project's and its organization's slugs. */
    private void countMinutes(long projectId, int minutes) {
        store.organizations()
                .findProject(projectId)
                .ifPresent(project -> store.organizations()
                        .findOrganization(project.organizationId())
                        .ifPresent(org -> metrics.jobMinutes(
                                org.slug().value(), project.slug().value(), minutes)));
    }

    /** The attempt is over: bill its last minutes, drop it from memory and its deadlines, free its slot. */
    void finish(ActiveJob a, Instant now) {
        bill(a, now);
        forget(a);
        jobFinished();
    }

    void forget(ActiveJob a) {
        active.remove(a);
        logs.attemptEnded(a.job); // log readers look at the job again: it may have ended
        changes.job(a.job);
        changes.runners();
        deadlines.clear(DeadlineKeys.accept(a.job));
        deadlines.clear(DeadlineKeys.hard(a.job));
        deadlines.clear(DeadlineKeys.lost(a.job));
        deadlines.clear(DeadlineKeys.cancel(a.job));
    }

    LeaseId leaseOf(JobUuid job, int attempt) {
        return store.runs()
                .findJob(job)
                .flatMap(j -> store.runs().findAttempt(j.id(), attempt))
                .map(Attempt::lease)
                .orElse(null);
    }

    /** A router's word for the machine behind it that runs the attempt (issue 41), recorded instead of the router's own. */
    void recordMachine(ActiveJob a, RunnerHost machine) {
        if (machine != null)
            store.runners().recordAttemptMachine(a.runnerId, a.job, a.lease, machine.bounded(), clock.instant());
    }

    /** Keeps the runner's machine fingerprint on its attempt (docs/scheduling.md); runners before it send none. */
    void recordFingerprint(ActiveJob a, MachineFingerprint fingerprint) {
        if (fingerprint != null) store.runs().recordFingerprint(a.job, a.lease, Wire.encode(fingerprint));
    }

    // ---- after a transition: who is woken --------------------------------------------------------------

    /**
     * The store sent a failed job that opted in to retries back to pending, claimable after its
     * backoff: wake the waiting runners of its spec when that time comes (there is no poll).
     */
    void retryLater(Job job, Instant now) {
        metrics.transition("retry");
        Instant notBefore = job.notBefore() != null ? job.notBefore() : now;
        // Other nodes' runners are woken by their fallback sweep after the backoff; these at once.
        deadlines.set(DeadlineKeys.retry(job.uuid()), notBefore, () -> dispatcher.jobPending(job.specId()));
        if (!notBefore.isAfter(now)) bus.publish(new ClusterEvent.Pending(job.specId()));
    }

    /** A requeued job (pending again, or failed out of requeues): wake whoever may take it. */
    void afterRequeue(Job job) {
        if (job.status() == JobStatus.PENDING) {
            Instant now = clock.instant();
            if (job.queueDeadline() != null && !job.queueDeadline().isAfter(now)) {
                // Its queue time ran out while a runner held it: the sweep fails it rather than let it go round again.
                sweepQuietly();
                return;
            }
            if (job.declineBackoffUntil() != null && job.declineBackoffUntil().isAfter(now)) {
                // Declined by every runner of its spec: wake them when the back-off ends (there is no poll).
                deadlines.set(
                        DeadlineKeys.retry(job.uuid()),
                        job.declineBackoffUntil(),
                        () -> dispatcher.jobPending(job.specId()));
            }
            dispatcher.jobPending(job.specId());
            bus.publish(new ClusterEvent.Pending(job.specId()));
        } else {
            jobFinished();
        }
    }

    /** A job left flight: a tier limit it held may be lifted, for waiting runners on every node. */
    void jobFinished() {
        dispatcher.jobFinished();
        bus.publish(new ClusterEvent.Finished());
    }

    /**
     * An attempt of the runner ended through its machine or may have (a decline of any code, an
     * acceptance timeout, a lost runner): the store counts its infrastructure failures in the
     * window and quarantines it at the threshold (docs/scheduling.md). After the transition's
     * commit, so a failure here never undoes the requeue or retry.
     */
    void infrastructureFailure(Long runnerId) {
        if (settings.quarantineThreshold() == 0 || runnerId == null) return;
        try {
            store.runners()
                    .quarantineIfFlaky(
                            runnerId, settings.quarantineThreshold(), settings.quarantineWindow(), clock.instant())
                    .ifPresent(r -> {
                        LOG.warn(
                                "runner {} quarantined: {}; it gets no new jobs until an admin releases it (baton runners release {})",
                                r.slug(),
                                r.quarantineReason(),
                                r.slug());
                        metrics.quarantined();
                        changes.runners();
                    });
        } catch (RuntimeException e) {
            // The next failure counts this one again (the count reads the attempts), so nothing is lost.
            LOG.warn("could not check runner {} for quarantine: {}", runnerId, e.toString());
        }
    }

    // ---- the answers to a runner --------------------------------------------------------------------

    ServerMessage cancelMessage(ActiveJob a, String reason) {
        return new ServerMessage.Cancel(
                a.job, a.lease, reason, (int) settings.cancelDeadline().toSeconds());
    }

    static ServerMessage stale(RunnerMessage.JobScoped m, String reason) {
        return new ServerMessage.Stale(m.job(), m.lease(), reason);
    }

    static ServerMessage notYours(JobUuid job) {
        return new ServerMessage.Error("not_your_job", "job " + job + " is not leased to this runner");
    }
}

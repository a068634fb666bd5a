package dev.baton.server.dispatch;

import dev.baton.server.events.Changes;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.server.cluster.ClusterBus;
import dev.baton.server.cluster.ClusterEvent;
import dev.baton.server.logs.LiveLogs;
import dev.baton.server.metrics.BatonMetrics;
import dev.baton.server.output.ResultProcessor;
import dev.baton.server.store.Attempt;
import dev.baton.server.store.AttemptOutcome;
import dev.baton.server.store.Deadline;
import dev.baton.server.store.Decline;
import dev.baton.server.store.Job;
import dev.baton.server.store.Store;
import dev.baton.server.store.Transition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of an attempt after its claim: acceptance ({@code preparing}, {@code running},
 * {@code declined}), liveness, the runner's final word, and every timeout (acceptance window,
 * read timeout, disconnect, hard timeout, cancel deadline), plus recovery after a restart.
 *
 * <p>Rules (brief §1): every job-scoped message is checked against the current lease, and a
 * wrong one changes nothing and is answered {@code stale}; a job that never started goes back to
 * the queue when its runner declines, disappears or misses the window; a started job that loses
 * its runner fails (or is canceled past its hard timeout); a {@code completed} under the current
 * lease overrides a heartbeat-timeout failure. State changes are compare-and-set in the store;
 * memory only caches the current attempts for cheap heartbeats.
 *
 * <p>Several nodes (issue 14, docs/decisions/0006-cluster.md): every deadline that changes a job
 * is a column written with the transition that starts it, and {@link #sweep} acts on the due ones
 * under a row lock, so exactly one node acts on each; this node's timers only wake the sweep
 * early. What a sweep decides reaches the runner's node, and wakes idle runners anywhere, over
 * the {@link ClusterBus}.
 */
public final class JobLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(JobLifecycle.class);

    private final Store store;
    private final ActiveJobs active;
    private final Deadlines deadlines;
    private final Dispatcher dispatcher;
    private final Sessions sessions;
    private final Liveness liveness;
    private final ResultProcessor results;
    private final AttemptWords words;
    private final BatonMetrics metrics;
    private final Clock clock;
    private final LifecycleSettings settings;
    private final LiveLogs logs;
    private final PendingExplainer explainer;
    private final ClusterBus bus;
    /** One sweep at a time on this node (other nodes are kept out by the row locks). */
    private final ReentrantLock sweeping = new ReentrantLock();
    private final Changes changes;
    private volatile boolean shuttingDown;

    /** Jobs one sweep transaction acts on at most, per kind of deadline; a sweep takes batches until none are due. */
    private static final int SWEEP_BATCH = 100;

    public JobLifecycle(Store store, ActiveJobs active, Deadlines deadlines, Dispatcher dispatcher, Sessions sessions,
            Liveness liveness, ResultProcessor results, BatonMetrics metrics, Clock clock, LifecycleSettings settings,
            LiveLogs logs, PendingExplainer explainer, ClusterBus bus, Changes changes) {
        this.changes = changes;
        this.store = store;
        this.active = active;
        this.deadlines = deadlines;
        this.dispatcher = dispatcher;
        this.sessions = sessions;
        this.liveness = liveness;
        this.results = results;
        this.words = new AttemptWords(store, results);
        this.metrics = metrics;
        this.clock = clock;
        this.settings = settings;
        this.logs = logs;
        this.explainer = explainer;
        this.bus = bus;
        dispatcher.onAcceptanceTimeout(a -> sweepQuietly());
    }

    // ---- runner messages -----------------------------------------------------------------------

    public ServerMessage preparing(RunnerSession session, RunnerMessage.Preparing m) {
        return switch (resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> {
                if (a.cancelRequested) yield cancelMessage(a, "canceled");
                touch(a);
                if (!a.isRunning()) {
                    Instant until = clock.instant().plus(settings.acceptanceTimeout());
                    if (!store.extendAcceptance(a.job, a.lease, until)) {
                        // Not claimed under this lease any more (running already, or ended by another node's sweep).
                        Job now = store.findJob(a.job).orElse(null);
                        if (now == null || !now.holds(a.lease) || !now.status().inFlight()) {
                            forget(a);
                            yield stale(m, "lease is no longer current");
                        }
                    }
                    wakeAt(DeadlineKeys.accept(a.job), until);
                }
                yield new ServerMessage.Ack(m.job());
            }
            case Resolution.Finished(Job j) -> stale(m, "job is " + j.status().wireName());
            case Resolution.Stale(String reason) -> stale(m, reason);
            case Resolution.Forbidden() -> notYours(m.job());
        };
    }

    public ServerMessage running(RunnerSession session, RunnerMessage.Running m) {
        return switch (resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> start(a, m);
            case Resolution.Finished(Job j) -> j.status() == JobStatus.CANCELED ? new ServerMessage.Cancel(m.job(), m.lease(), "canceled", 0)
                    : stale(m, "job is " + j.status().wireName());
            case Resolution.Stale(String reason) -> stale(m, reason);
            case Resolution.Forbidden() -> notYours(m.job());
        };
    }

    private ServerMessage start(ActiveJob a, RunnerMessage.Running m) {
        if (a.cancelRequested) return cancelMessage(a, "canceled");
        touch(a);
        if (a.isRunning()) return new ServerMessage.Ack(m.job()); // resent running: liveness only
        Instant now = clock.instant();
        Transition t = store.start(a.job, a.lease, now, settings.jobTimeoutGrace());
        switch (t.result()) {
            case APPLIED, DUPLICATE -> {
                Job job = t.job();
                recordFingerprint(a, m.fingerprint());
                a.started = job.started() == null ? now : job.started();
                deadlines.clear(DeadlineKeys.accept(a.job));
                hardTimeoutWake(a);
                if (t.applied()) {
                    changes.job(a.job);
                    metrics.transition("start");
                    metrics.acceptance("accepted");
                    metrics.queueDuration(job.priority(), Duration.between(job.created(), a.started));
                }
                return new ServerMessage.Ack(m.job());
            }
            case CONFLICT -> {
                if (t.job().status() == JobStatus.CANCELED) return cancelMessage(a, "canceled");
                forget(a);
                return stale(m, "job is " + t.job().status().wireName());
            }
            default -> { // STALE, or NOT_FOUND: the job went away under us
                forget(a);
                return stale(m, "lease is no longer current");
            }
        }
    }

    public ServerMessage heartbeat(RunnerSession session, RunnerMessage.Heartbeat m) {
        if (m.job() == null) return new ServerMessage.Ack(null);
        if (m.lease() == null) return new ServerMessage.Error("invalid_message", "a heartbeat naming a job must carry its lease");
        return switch (resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> {
                if (a.cancelRequested) yield cancelMessage(a, "canceled");
                touch(a);
                if (a.isRunning()) {
                    Instant now = clock.instant();
                    if (now.isAfter(hardDeadline(a))) yield hardTimeout(a);
                    bill(a, now);
                }
                yield new ServerMessage.Ack(m.job());
            }
            case Resolution.Finished(Job j) -> new ServerMessage.Stale(m.job(), m.lease(), "job is " + j.status().wireName());
            case Resolution.Stale(String reason) -> new ServerMessage.Stale(m.job(), m.lease(), reason);
            case Resolution.Forbidden() -> notYours(m.job());
        };
    }

    /**
     * A chunk of live output: kept in this node's log tail under the current lease only, and
     * counted as liveness of the attempt like a heartbeat. Best effort: nothing is written to the
     * store; the whole log is the output stored with the final word.
     */
    public ServerMessage log(RunnerSession session, RunnerMessage.Log m) {
        return switch (resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> {
                touch(a);
                logs.append(a.job, a.lease, m);
                yield new ServerMessage.Ack(m.job());
            }
            case Resolution.Finished(Job j) -> stale(m, "job is " + j.status().wireName());
            case Resolution.Stale(String reason) -> stale(m, reason);
            case Resolution.Forbidden() -> notYours(m.job());
        };
    }

    public ServerMessage declined(RunnerSession session, RunnerMessage.Declined m) {
        return switch (resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> {
                if (a.isRunning()) yield new ServerMessage.Error("cannot_decline", "job " + m.job() + " is already running; report failed instead");
                DeclineCode code = m.declineCode();
                LOG.info("runner {} declined job {} ({}): {}", session.runner().slug(), m.job(), code.wireName(), m.reason());
                dispatcher.runnerDeclined(session.runnerId());
                metrics.declined(code.wireName());
                Transition t = store.requeue(a.job, a.lease, AttemptOutcome.DECLINED, new Decline(code.wireName(), bounded(m.reason())),
                        settings.maxRequeues(), settings.declineBackoff(), clock.instant());
                yield switch (t.result()) {
                    case APPLIED -> {
                        forget(a);
                        recordFingerprint(a, m.fingerprint());
                        infrastructureFailure(session.runnerId());
                        afterRequeue(t.job());
                        yield new ServerMessage.Ack(m.job());
                    }
                    case CONFLICT -> {
                        if (t.job().status() == JobStatus.CANCELED) yield new ServerMessage.Ack(m.job());
                        yield new ServerMessage.Error("cannot_decline", "job " + m.job() + " is " + t.job().status().wireName());
                    }
                    default -> {
                        forget(a);
                        yield stale(m, "lease is no longer current");
                    }
                };
            }
            case Resolution.Finished(Job j) -> stale(m, "job is " + j.status().wireName());
            case Resolution.Stale(String reason) -> stale(m, reason);
            case Resolution.Forbidden() -> notYours(m.job());
        };
    }

    /** {@code completed}, {@code failed} or {@code canceled}: applied once, acknowledged every time it is resent. */
    public ServerMessage terminal(RunnerSession session, RunnerMessage.Terminal m) {
        Resolution r = resolve(session, m.job(), m.lease());
        ActiveJob attempt = r instanceof Resolution.Current(ActiveJob a) ? a : null;
        if (r instanceof Resolution.Stale(String reason)) {
            // A resend of a final word that was applied when the attempt ended (the job has been
            // retried since): acknowledge it so the runner drops it from its outbox.
            return attemptEndedAs(m) ? new ServerMessage.Ack(m.job()) : stale(m, reason);
        }
        if (r instanceof Resolution.Forbidden) return notYours(m.job());

        Instant now = clock.instant();
        // The common case, a completed of the attempt this node holds, needs no read of the job:
        // the transition's compare-and-set under the lease is the check (as it is after a read,
        // which is old by the time the transition runs). Other words, a canceled attempt (its
        // runner may answer completed after cancel) and attempts not held here read the job first.
        Transition t = attempt != null && !attempt.cancelRequested && m instanceof RunnerMessage.Completed c
                ? completeHeld(attempt, c, now)
                : finalWord(m, r instanceof Resolution.Finished(Job finished) ? finished : store.findJob(m.job()).orElseThrow(), now);
        if (t != null && t.result() == Transition.Result.STALE) return stale(m, "lease is no longer current");
        if (t != null && t.applied()) {
            changes.job(m.job());
            metrics.transition(switch (m) {
                case RunnerMessage.Completed c -> "complete";
                case RunnerMessage.Failed f -> "fail";
                case RunnerMessage.Canceled c -> "cancel";
            });
            // Only a `completed` completes a job, and it stored its output just before the transition.
            if (t.job().status() == JobStatus.COMPLETED && m instanceof RunnerMessage.Completed c) results.processLater(t.job(), AttemptWords.outputOf(c));
            if (t.job().status() == JobStatus.PENDING) retryLater(t.job(), now);
            // The job's runner: resolve refused any other (not_your_job).
            if (m instanceof RunnerMessage.Failed f && f.runnerLost()) infrastructureFailure(session.runnerId());
            if (t.job().canaryRunnerId() != null && !t.job().status().inFlight() && t.job().status() != JobStatus.PENDING) {
                canaryEnded(t.job(), m instanceof RunnerMessage.Completed c && passed(c.results()), now);
            }
        }
        if (attempt != null) finish(attempt, now);
        else if (t != null && t.applied()) jobFinished();
        return new ServerMessage.Ack(m.job());
    }

    /** A completed of the attempt this node holds (not told to cancel): its output under its attempt, then the transition ({@link AttemptWords}). */
    private Transition completeHeld(ActiveJob a, RunnerMessage.Completed c, Instant now) {
        return words.complete(store.projectUuid(a.projectId).orElseThrow(), a.job, a.attempt, a.lease, c, now);
    }

    /**
     * The runner's final word on {@code job} as last read: null when it changes nothing (a resend, or
     * a job already over). The lease is checked against the read before anything is stored: a word
     * of an attempt whose lease has moved on since this node last looked (another node found this
     * one dead and the job runs again) stores nothing and is stale, or acknowledged when it is the
     * resend of a word that was applied when that attempt ended.
     */
    private Transition finalWord(RunnerMessage.Terminal m, Job job, Instant now) {
        if (!job.holds(m.lease())) return attemptEndedAs(m) ? null : new Transition(Transition.Result.STALE, job);
        var project = store.projectUuid(job.projectId()).orElseThrow();
        int attempt = job.attempt(); // the lease's attempt: the job holds it
        return switch (m) {
            case RunnerMessage.Completed c -> {
                // Under its own lease a completed overrides a heartbeat-timeout failure (docs/protocol.md).
                if (job.status() == JobStatus.COMPLETED || job.status() == JobStatus.PROCESSED || job.status() == JobStatus.CANCELED) yield null;
                yield words.complete(project, m.job(), attempt, m.lease(), c, now);
            }
            case RunnerMessage.Failed f -> {
                if (job.status() == JobStatus.FAILED && !results.hasOutput(project, job)) {
                    // A heartbeat-timeout failure, now with the runner's own account: keep it.
                    results.save(project, job.uuid(), attempt, new JobOutput(f.results(), AttemptWords.errorOf(f)));
                }
                if (!job.status().inFlight()) yield null;
                yield words.fail(project, attempt, f, now);
            }
            case RunnerMessage.Canceled c -> {
                if (hasResults(c.results()) && !results.hasOutput(project, job)) {
                    results.save(project, job.uuid(), attempt, new JobOutput(c.results(), "canceled"));
                }
                if (job.status() == JobStatus.CANCELED) store.clearCancelDeadline(m.job(), m.lease()); // the runner answered in time
                if (!job.status().inFlight()) yield null;
                yield store.cancel(m.job(), m.lease(), "canceled by the runner", now);
            }
        };
    }

    /**
     * A canary job ended (docs/scheduling.md, "Canary release"): passed — completed with every
     * iteration exiting 0 — it lifts its runner's quarantine as an admin's release would; otherwise
     * the runner stays quarantined. After the job's own commit: a failure here never undoes it.
     */
    private void canaryEnded(Job job, boolean passed, Instant now) {
        long runnerId = job.canaryRunnerId();
        if (!passed) {
            LOG.warn("canary job {} for runner {} did not pass ({}); the runner stays quarantined", job.uuid(), runnerId, job.status().wireName());
            return;
        }
        try {
            var runner = store.releaseRunner(runnerId, now);
            LOG.info("canary job {} passed: runner {} released from quarantine", job.uuid(), runner.slug());
            changes.runners();
        } catch (RuntimeException e) {
            LOG.warn("canary job {} passed but runner {} could not be released: {}", job.uuid(), runnerId, e.toString());
        }
    }

    private static boolean passed(java.util.List<dev.baton.protocol.model.IterationResult> results) {
        return results != null && !results.isEmpty() && results.stream().allMatch(r -> r.exitCode() == 0);
    }

    // ---- connections -----------------------------------------------------------------------------

    /**
     * The runner's channel opened on this node: the store records its node (so that if this node
     * dies, the others know whose jobs to take over), and what this node remembers of its attempts
     * is checked with the store on their next message (another node may have ended them meanwhile).
     */
    public void connectionOpened(RunnerSession session) {
        store.attachRunner(session.runnerId(), settings.nodeId());
        for (ActiveJob a : active.ofRunner(session.runnerId())) a.reattach = true;
    }

    /**
     * The runner's current channel closed. Its attempts get one heartbeat timeout to come back on
     * a new connection, on this node or another (seed 000's disconnect recovery): the store holds
     * that deadline, so it holds even if this node dies.
     */
    public void connectionClosed(RunnerSession session) {
        if (shuttingDown) return;
        changes.runners();
        Instant lostAt = clock.instant().plus(settings.heartbeatTimeout());
        try {
            store.detachRunner(session.runnerId(), settings.nodeId(), lostAt);
        } catch (RuntimeException e) {
            LOG.warn("could not record that runner {} disconnected; the fallback sweep retries: {}", session.runner().slug(), e.toString());
        }
        for (ActiveJob a : active.ofRunner(session.runnerId())) {
            a.reattach = true;
            wakeAt(DeadlineKeys.lost(a.job), lostAt);
        }
    }

    /** The channel has been silent for the heartbeat timeout: its attempts are lost now. */
    public void readTimedOut(RunnerSession session) {
        LOG.warn("runner {} silent for {}: closing its channel", session.runner().slug(), settings.heartbeatTimeout());
        Instant now = clock.instant();
        store.markRunnerLost(session.runnerId(), now);
        store.detachRunner(session.runnerId(), settings.nodeId(), now);
        sweepQuietly();
    }

    /**
     * Runners the store records on this node without a channel here: their disconnect was not
     * written (the database was unreachable when the channel closed). They are detached now, so
     * that their jobs get the usual heartbeat timeout instead of waiting on a node that no longer
     * holds them. Part of the fallback sweep; returns how many were detached.
     */
    public int detachStrayRunners() {
        if (shuttingDown) return 0;
        int detached = 0;
        for (long runnerId : store.runnersOn(settings.nodeId())) {
            if (sessions.of(runnerId).isPresent()) continue;
            store.detachRunner(runnerId, settings.nodeId(), clock.instant().plus(settings.heartbeatTimeout()));
            detached++;
        }
        return detached;
    }

    /** A crash in a test: this node stops acting and writes nothing more. */
    public void halt() {
        shuttingDown = true;
    }

    /** Graceful server shutdown: in-flight jobs stay as they are for the runners to reconnect to (here or on another node). */
    public void shutdown() {
        shuttingDown = true;
        Instant now = clock.instant();
        try {
            store.stopNode(settings.nodeId(), now, now.plus(settings.heartbeatTimeout()));
        } catch (RuntimeException e) {
            LOG.warn("could not mark node {} stopped; the other nodes will find it dead: {}", settings.nodeId(), e.toString());
        }
    }

    // ---- user cancel -----------------------------------------------------------------------------

    /** A user canceled the job in the store: tell its runner now (not on its next heartbeat), wherever it is connected. */
    public void userCanceled(Job before) {
        if (before.status().inFlight() && before.lease() != null && before.runnerId() != null) {
            runnerCancel(before.uuid(), before.attempt(), before.runnerId(), "canceled_by_user", before.lease());
            bus.publish(new ClusterEvent.CancelRunner(before.uuid(), before.attempt(), before.runnerId(), "canceled_by_user"));
        }
        jobFinished();
    }

    // ---- the sweep of the store's deadlines --------------------------------------------------------

    /**
     * Acts on every deadline due in the store, whichever node set it: nodes found dead (their
     * runners are treated as disconnected), acceptance windows, lost runners, hard timeouts,
     * cancel deadlines and queue timeouts. Each runs under the job's row lock in the store; what
     * follows (messages to runners, wake-ups) runs after the commit, here and on the other nodes.
     * Returns how many jobs were acted on.
     */
    public int sweep() {
        if (shuttingDown) return 0;
        sweeping.lock();
        try {
            Instant now = clock.instant();
            for (String dead : store.expireNodes(settings.nodeId(), now.minus(settings.nodeTimeout()), now, settings.heartbeatTimeout())) {
                LOG.warn("node {} missed its heartbeats for {}: its runners are treated as disconnected", dead, settings.nodeTimeout());
                metrics.transition("node_lost");
            }
            int acted = 0;
            acted += sweep(Deadline.ACCEPT, now, this::acceptanceExpired);
            acted += sweep(Deadline.LOST, now, this::lostExpired);
            acted += sweep(Deadline.HARD, now, this::hardExpired);
            acted += sweep(Deadline.CANCEL, now, this::cancelExpired);
            acted += sweep(Deadline.QUEUE, now, this::queueExpired);
            return acted;
        } finally {
            sweeping.unlock();
        }
    }

    /** The sweep from a timer or a background loop: a database hiccup is logged and the next sweep tries again. */
    public void sweepQuietly() {
        try {
            sweep();
        } catch (RuntimeException e) {
            LOG.warn("deadline sweep failed; the next one retries: {}", e.toString());
        }
    }

    private int sweep(Deadline kind, Instant now, Function<Job, Runnable> act) {
        int acted = 0;
        while (true) {
            List<Runnable> effects = store.sweepDue(kind, now, SWEEP_BATCH, job -> withChange(job, act.apply(job)));
            for (Runnable effect : effects) {
                try {
                    effect.run();
                } catch (RuntimeException e) {
                    LOG.warn("after the {} deadline: {}", kind, e.toString());
                }
            }
            acted += effects.size();
            if (effects.size() < SWEEP_BATCH) return acted;
        }
    }

    private static final Runnable NOTHING = () -> {};

    /** The effect of an act that changed the job, then word to the console's live pages (docs/console.md). */
    private Runnable withChange(Job job, Runnable effect) {
        if (effect == NOTHING) return effect;
        return () -> {
            effect.run();
            changes.job(job.uuid());
            changes.runners();
        };
    }

    // The acts below run inside the sweep's transaction, on a locked row: store transitions only.

    private Runnable acceptanceExpired(Job job) {
        Instant now = clock.instant();
        Transition t = store.requeue(job.uuid(), job.lease(), AttemptOutcome.ACCEPT_TIMEOUT, settings.maxRequeues(), now);
        if (!t.applied()) return NOTHING;
        return () -> {
            LOG.info("job {} not accepted within {}: back to the queue", job.uuid(), settings.acceptanceTimeout());
            metrics.acceptance("acceptance_timeout");
            attemptEnded(job, "acceptance_timeout");
            infrastructureFailure(job.runnerId());
            afterRequeue(t.job());
        };
    }

    /** The runner is gone: requeue what never started, fail (or cancel past the hard timeout) what did. */
    private Runnable lostExpired(Job job) {
        Instant now = clock.instant();
        if (job.status() == JobStatus.CLAIMED) {
            Transition t = store.requeue(job.uuid(), job.lease(), AttemptOutcome.LOST_BEFORE_START, settings.maxRequeues(), now);
            if (!t.applied()) return NOTHING;
            return () -> {
                metrics.acceptance("requeued");
                attemptEnded(job, null);
                infrastructureFailure(job.runnerId());
                afterRequeue(t.job());
            };
        }
        Instant hard = job.started().plusSeconds(job.timeout()).plus(settings.jobTimeoutGrace());
        if (now.isAfter(hard)) {
            Transition t = store.cancel(job.uuid(), job.lease(), "hard timeout exceeded and lost contact with the runner", now, null);
            return () -> {
                if (t.applied()) metrics.transition("hard_timeout");
                attemptEnded(job, null);
                jobFinished();
            };
        }
        Transition t = store.fail(job.uuid(), job.lease(), "lost contact with the runner (disconnected or silent past the heartbeat timeout)",
                AttemptOutcome.LOST, now);
        return () -> {
            if (t.applied()) metrics.transition("lost");
            attemptEnded(job, null);
            if (t.applied()) infrastructureFailure(job.runnerId());
            if (t.applied() && t.job().status() == JobStatus.PENDING) retryLater(t.job(), now);
            else jobFinished();
        };
    }

    private Runnable hardExpired(Job job) {
        Instant now = clock.instant();
        Transition t = store.cancel(job.uuid(), job.lease(), "hard timeout: ran longer than its timeout plus the grace period", now,
                now.plus(settings.cancelDeadline()));
        if (!t.applied()) return NOTHING;
        return () -> {
            metrics.transition("hard_timeout");
            runnerCancel(job.uuid(), job.attempt(), job.runnerId(), "timeout", job.lease());
            bus.publish(new ClusterEvent.CancelRunner(job.uuid(), job.attempt(), job.runnerId(), "timeout"));
            jobFinished();
        };
    }

    /** No {@code canceled} in time: the job is final as canceled; the lease is revoked. */
    private Runnable cancelExpired(Job job) {
        return () -> {
            LOG.warn("runner did not confirm cancel of job {} within {}", job.uuid(), settings.cancelDeadline());
            metrics.transition("cancel_deadline");
            attemptEnded(job, "cancel_deadline_passed");
        };
    }

    /** Fails the job with queue_timeout; the store selected it only while pending and never started. */
    private Runnable queueExpired(Job job) {
        String why = explainer.status(job).map(s -> "; it was waiting because: " + s.reason().message()).orElse("");
        String error = "queue_timeout: the job waited longer than its queue timeout of " + job.queueTimeout() + " s without starting" + why;
        Transition t = store.expireQueued(job.uuid(), error, clock.instant());
        if (!t.applied()) return NOTHING;
        return () -> {
            LOG.info("job {} failed: {}", job.uuid(), error);
            metrics.transition("queue_timeout");
            deadlines.clear(DeadlineKeys.retry(job.uuid()));
        };
    }

    // ---- what a sweep decided, on every node ----------------------------------------------------------

    /**
     * An attempt of the runner ended through its machine or may have (a decline of any code, an
     * acceptance timeout, a lost runner): the store counts its infrastructure failures in the
     * window and quarantines it at the threshold (docs/scheduling.md). After the transition's
     * commit, so a failure here never undoes the requeue or retry.
     */
    private void infrastructureFailure(Long runnerId) {
        if (settings.quarantineThreshold() == 0 || runnerId == null) return;
        try {
            store.quarantineIfFlaky(runnerId, settings.quarantineThreshold(), settings.quarantineWindow(), clock.instant()).ifPresent(r -> {
                LOG.warn("runner {} quarantined: {}; it gets no new jobs until an admin releases it (baton runners release {})",
                        r.slug(), r.quarantineReason(), r.slug());
                metrics.quarantined();
                changes.runners();
            });
        } catch (RuntimeException e) {
            // The next failure counts this one again (the count reads the attempts), so nothing is lost.
            LOG.warn("could not check runner {} for quarantine: {}", runnerId, e.toString());
        }
    }

    /** An attempt ended by a deadline: here, and on the other nodes (one of which may hold its runner). */
    private void attemptEnded(Job job, String reason) {
        if (job.runnerId() == null) return;
        attemptEnded(job.uuid(), job.attempt(), job.runnerId(), reason, job.lease());
        bus.publish(new ClusterEvent.AttemptEnded(job.uuid(), job.attempt(), job.runnerId(), reason));
    }

    /**
     * Attempt {@code attempt} of the job is over: dropped from memory (billing its last minutes)
     * and, when {@code reason} is given and the runner's channel is on this node, the runner is
     * told {@code stale}. {@code lease} is null when another node sent this (leases never travel).
     */
    public void attemptEnded(JobUuid job, int attempt, long runnerId, String reason, LeaseId lease) {
        Optional<ActiveJob> local = active.get(job).filter(a -> a.attempt == attempt);
        local.ifPresent(a -> {
            bill(a, clock.instant());
            forget(a);
        });
        if (reason == null) return;
        Optional<RunnerSession> session = sessions.of(runnerId);
        if (session.isEmpty()) return;
        LeaseId known = local.map(a -> a.lease).orElse(lease);
        if (known == null) known = leaseOf(job, attempt);
        if (known != null) session.get().send(new ServerMessage.Stale(job, known, reason));
    }

    /** The job was canceled while attempt {@code attempt} ran: its runner, if connected here, is told to stop. */
    public void runnerCancel(JobUuid job, int attempt, long runnerId, String reason, LeaseId lease) {
        Optional<ActiveJob> local = active.get(job).filter(a -> a.attempt == attempt);
        if (local.isPresent()) {
            requestCancel(local.get(), reason);
            return;
        }
        Optional<RunnerSession> session = sessions.of(runnerId);
        if (session.isEmpty()) return;
        LeaseId known = lease != null ? lease : leaseOf(job, attempt);
        if (known != null) session.get().send(new ServerMessage.Cancel(job, known, reason, (int) settings.cancelDeadline().toSeconds()));
    }

    private LeaseId leaseOf(JobUuid job, int attempt) {
        return store.findJob(job).flatMap(j -> store.findAttempt(j.id(), attempt)).map(Attempt::lease).orElse(null);
    }

    /**
     * This node was found dead by another while it was paused (it missed its heartbeats): its
     * runners were detached. It registers again, re-attaches the runners still connected here,
     * and checks its attempts with the store on their next message.
     */
    public void rejoin() {
        Instant now = clock.instant();
        LOG.warn("node {} was found dead by another node while it was paused: registering again", settings.nodeId());
        store.registerNode(settings.nodeId(), now, now.plus(settings.heartbeatTimeout()), now.minus(settings.nodeTimeout()));
        for (RunnerSession s : sessions.all()) store.attachRunner(s.runnerId(), settings.nodeId());
        for (ActiveJob a : active.all()) a.reattach = true;
    }

    private void hardTimeoutWake(ActiveJob a) {
        wakeAt(DeadlineKeys.hard(a.job), hardDeadline(a));
    }

    private ServerMessage hardTimeout(ActiveJob a) {
        Instant now = clock.instant();
        Transition t = store.cancel(a.job, a.lease, "hard timeout: ran longer than its timeout plus the grace period", now,
                now.plus(settings.cancelDeadline()));
        if (t.applied()) metrics.transition("hard_timeout");
        return requestCancel(a, "timeout");
    }

    /** Marks the attempt as told to stop, pushes {@code cancel}; the cancel deadline is in the store. */
    private ServerMessage requestCancel(ActiveJob a, String reason) {
        a.cancelRequested = true;
        deadlines.clear(DeadlineKeys.accept(a.job));
        deadlines.clear(DeadlineKeys.hard(a.job));
        deadlines.clear(DeadlineKeys.lost(a.job));
        wakeAt(DeadlineKeys.cancel(a.job), clock.instant().plus(settings.cancelDeadline()));
        ServerMessage cancel = cancelMessage(a, reason);
        sessions.of(a.runnerId).ifPresent(s -> s.send(cancel));
        return cancel;
    }

    // ---- recovery --------------------------------------------------------------------------------

    /**
     * At start: the node registers (taking over from a previous run of the same id that did not
     * stop cleanly), and completed jobs whose output was stored but not parsed are processed
     * again. Nothing else: every deadline is in the store, and the sweep acts on it.
     */
    public void recover() {
        Instant now = clock.instant();
        store.registerNode(settings.nodeId(), now, now.plus(settings.heartbeatTimeout()), now.minus(settings.nodeTimeout()));
        for (Job job : store.completedUnprocessedJobs()) results.process(job);
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private Resolution resolve(RunnerSession session, JobUuid jobId, LeaseId lease) {
        var inMemory = active.get(jobId);
        if (inMemory.isPresent() && inMemory.get().lease.matches(lease)) {
            ActiveJob a = inMemory.get();
            if (a.runnerId != session.runnerId()) return new Resolution.Forbidden();
            if (!a.reattach) return new Resolution.Current(a);
            // The runner came back: drop the store's lost deadline, unless the attempt ended meanwhile.
            Optional<Job> current = store.reattach(a.job, a.lease);
            if (current.isPresent()) {
                a.reattach = false;
                if (a.started == null && current.get().started() != null) a.started = current.get().started();
                return new Resolution.Current(a);
            }
            forget(a);
        }
        var stored = store.findJob(jobId);
        if (stored.isEmpty()) return new Resolution.Stale("no such job");
        Job job = stored.get();
        if (job.holds(lease)) {
            if (job.runnerId() == null || job.runnerId() != session.runnerId()) return new Resolution.Forbidden();
            if (job.status().inFlight()) {
                ActiveJob adopted = adopt(job); // not in memory here yet: another node's runner, or a restart
                if (adopted != null) return new Resolution.Current(adopted);
                job = store.findJob(jobId).orElse(job);
                if (!job.holds(lease)) return new Resolution.Stale("lease is no longer current");
            }
            return new Resolution.Finished(job);
        }
        // Any lease that is not the current one changes nothing and is answered stale, whether it
        // is an earlier attempt of this runner or one it never held.
        List<Attempt> attempts = store.attempts(job.id());
        boolean earlierAttemptOfThisRunner = attempts.stream().anyMatch(at -> at.lease().matches(lease) && at.runnerId() == session.runnerId());
        return new Resolution.Stale(earlierAttemptOfThisRunner ? "lease is no longer current" : "lease is not valid for this job");
    }

    /**
     * A stored in-flight attempt this node does not hold in memory (its runner came here from
     * another node, or this node restarted): the store drops its lost deadline, and this node
     * keeps it in memory with wake-ups for its deadlines. Null when it ended meanwhile.
     */
    private ActiveJob adopt(Job stored) {
        Optional<Job> current = store.reattach(stored.uuid(), stored.lease());
        if (current.isEmpty()) return null;
        Job job = current.get();
        ActiveJob a = new ActiveJob(job.uuid(), job.lease(), job.runnerId(), job.attempt(), job.timeout(), job.projectId(), job.started(),
                job.lastBilledMinute() == null ? 0 : job.lastBilledMinute());
        active.put(a);
        if (a.isRunning()) hardTimeoutWake(a);
        else wakeAt(DeadlineKeys.accept(a.job), job.claimed().plus(settings.acceptanceTimeout()));
        return a;
    }

    /** A timer of this node that only wakes the store's sweep (which acts if the store says the deadline is due). */
    private void wakeAt(String key, Instant at) {
        deadlines.set(key, at, this::sweepQuietly);
    }

    private Instant hardDeadline(ActiveJob a) {
        return a.started.plusSeconds(a.timeoutSeconds).plus(settings.jobTimeoutGrace());
    }

    private void touch(ActiveJob a) {
        liveness.job(a.job, clock.instant());
    }

    /** Bills whole minutes of run time not billed yet (last_billed_minute prevents double counting). */
    private void bill(ActiveJob a, Instant now) {
        if (a.started == null) return;
        int minute = (int) Duration.between(a.started, now).toMinutes();
        if (minute > a.lastBilledMinute) {
            store.billMinutes(a.job, minute, now);
            a.lastBilledMinute = minute;
        }
    }

    /**
     * The store sent a failed job that opted in to retries back to pending, claimable after its
     * backoff: wake the waiting runners of its spec when that time comes (there is no poll).
     */
    private void retryLater(Job job, Instant now) {
        metrics.transition("retry");
        Instant notBefore = job.notBefore() != null ? job.notBefore() : now;
        // Other nodes' runners are woken by their fallback sweep after the backoff; these at once.
        deadlines.set(DeadlineKeys.retry(job.uuid()), notBefore, () -> dispatcher.jobPending(job.specId()));
        if (!notBefore.isAfter(now)) bus.publish(new ClusterEvent.Pending(job.specId()));
    }

    private boolean attemptEndedAs(RunnerMessage.Terminal m) {
        AttemptOutcome said = switch (m) {
            case RunnerMessage.Completed c -> AttemptOutcome.COMPLETED;
            case RunnerMessage.Failed f -> AttemptOutcome.FAILED;
            case RunnerMessage.Canceled c -> AttemptOutcome.CANCELED;
        };
        return store.findJob(m.job())
                .map(job -> store.attempts(job.id()).stream().anyMatch(at -> at.lease().matches(m.lease()) && at.outcome() == said))
                .orElse(false);
    }

    /** A requeued job (pending again, or failed out of requeues): wake whoever may take it. */
    private void afterRequeue(Job job) {
        if (job.status() == JobStatus.PENDING) {
            Instant now = clock.instant();
            if (job.queueDeadline() != null && !job.queueDeadline().isAfter(now)) {
                // Its queue time ran out while a runner held it: the sweep fails it rather than let it go round again.
                sweepQuietly();
                return;
            }
            if (job.declineBackoffUntil() != null && job.declineBackoffUntil().isAfter(now)) {
                // Declined by every runner of its spec: wake them when the back-off ends (there is no poll).
                deadlines.set(DeadlineKeys.retry(job.uuid()), job.declineBackoffUntil(), () -> dispatcher.jobPending(job.specId()));
            }
            dispatcher.jobPending(job.specId());
            bus.publish(new ClusterEvent.Pending(job.specId()));
        } else {
            jobFinished();
        }
    }

    /** A job left flight: a tier limit it held may be lifted, for waiting runners on every node. */
    private void jobFinished() {
        dispatcher.jobFinished();
        bus.publish(new ClusterEvent.Finished());
    }

    // ---- queue timeout -----------------------------------------------------------------------------

    /**
     * A job entered the queue: if it has a queue timeout, wake the sweep when that passes (the
     * deadline, created + queue_timeout, is the store's; the sweep fails the job if still pending).
     */
    public void queued(Job job) {
        Instant deadline = job.queueDeadline();
        if (deadline == null || job.status() != JobStatus.PENDING) return;
        wakeAt(DeadlineKeys.queue(job.uuid()), deadline);
    }

    /** The attempt is over: bill its last minutes, drop it from memory and its deadlines, free its slot. */
    private void finish(ActiveJob a, Instant now) {
        bill(a, now);
        forget(a);
        jobFinished();
    }

    private void forget(ActiveJob a) {
        active.remove(a);
        logs.attemptEnded(a.job); // log readers look at the job again: it may have ended
        changes.job(a.job);
        changes.runners();
        deadlines.clear(DeadlineKeys.accept(a.job));
        deadlines.clear(DeadlineKeys.hard(a.job));
        deadlines.clear(DeadlineKeys.lost(a.job));
        deadlines.clear(DeadlineKeys.cancel(a.job));
    }

    private ServerMessage cancelMessage(ActiveJob a, String reason) {
        return new ServerMessage.Cancel(a.job, a.lease, reason, (int) settings.cancelDeadline().toSeconds());
    }

    private static ServerMessage stale(RunnerMessage.JobScoped m, String reason) {
        return new ServerMessage.Stale(m.job(), m.lease(), reason);
    }

    private static ServerMessage notYours(JobUuid job) {
        return new ServerMessage.Error("not_your_job", "job " + job + " is not leased to this runner");
    }

    /** Keeps the runner's machine fingerprint on its attempt (docs/scheduling.md); runners before it send none. */
    private void recordFingerprint(ActiveJob a, MachineFingerprint fingerprint) {
        if (fingerprint != null) store.recordFingerprint(a.job, a.lease, Wire.encode(fingerprint));
    }

    /** A runner's decline reason as stored: at most this many characters (the message itself is size-bounded). */
    static final int MAX_DECLINE_REASON = 1024;

    private static String bounded(String reason) {
        if (reason == null) return null;
        return reason.length() <= MAX_DECLINE_REASON ? reason : reason.substring(0, MAX_DECLINE_REASON);
    }

    private static boolean hasResults(List<IterationResult> results) {
        return results != null && !results.isEmpty();
    }
}

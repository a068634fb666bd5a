package dev.baton.server.dispatch;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.server.channel.RunnerSession;
import dev.baton.server.channel.Sessions;
import dev.baton.server.logs.LiveLogs;
import dev.baton.server.metrics.BatonMetrics;
import dev.baton.server.output.ResultProcessor;
import dev.baton.server.store.Attempt;
import dev.baton.server.store.AttemptOutcome;
import dev.baton.server.store.Decline;
import dev.baton.server.store.Job;
import dev.baton.server.store.Store;
import dev.baton.server.store.Transition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
    private final BatonMetrics metrics;
    private final Clock clock;
    private final LifecycleSettings settings;
    private final LiveLogs logs;
    private final PendingExplainer explainer;
    private final Changes changes;
    private volatile boolean shuttingDown;

    public JobLifecycle(Store store, ActiveJobs active, Deadlines deadlines, Dispatcher dispatcher, Sessions sessions,
            Liveness liveness, ResultProcessor results, BatonMetrics metrics, Clock clock, LifecycleSettings settings,
            LiveLogs logs, PendingExplainer explainer, Changes changes) {
        this.changes = changes;
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
        dispatcher.onAcceptanceTimeout(this::acceptanceExpired);
    }

    // ---- runner messages -----------------------------------------------------------------------

    public ServerMessage preparing(RunnerSession session, RunnerMessage.Preparing m) {
        return switch (resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> {
                if (a.cancelRequested) yield cancelMessage(a, "canceled");
                touch(a);
                if (!a.isRunning()) armAcceptance(a, clock.instant());
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
        Transition t = store.start(a.job, a.lease, now);
        switch (t.result()) {
            case APPLIED, DUPLICATE -> {
                Job job = t.job();
                recordFingerprint(a, m.fingerprint());
                a.started = job.started() == null ? now : job.started();
                deadlines.clear(DeadlineKeys.accept(a.job));
                armHardTimeout(a);
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
                        recordFingerprint(a, m.fingerprint());
                        afterRequeue(a, t.job());
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

        Job job = store.findJob(m.job()).orElseThrow();
        var project = store.findProject(job.projectId()).orElseThrow().uuid();
        Instant now = clock.instant();
        Transition t = switch (m) {
            case RunnerMessage.Completed c -> {
                if (job.status() == JobStatus.COMPLETED || job.status() == JobStatus.PROCESSED || job.status() == JobStatus.CANCELED) yield null;
                results.save(project, job, new JobOutput(c.results(), null));
                yield store.complete(m.job(), m.lease(), now);
            }
            case RunnerMessage.Failed f -> {
                if (job.status() == JobStatus.FAILED && !results.hasOutput(project, job)) {
                    // A heartbeat-timeout failure, now with the runner's own account: keep it.
                    results.save(project, job, new JobOutput(f.results(), errorOf(f)));
                }
                if (!job.status().inFlight()) yield null;
                results.save(project, job, new JobOutput(f.results(), errorOf(f)));
                // A router reports a runner behind it as lost: the same outcome as a runner the
                // server lost itself, so retry_when_runner_lost means the same through a router.
                yield store.fail(m.job(), m.lease(), errorOf(f), f.runnerLost() ? AttemptOutcome.LOST : AttemptOutcome.FAILED, now);
            }
            case RunnerMessage.Canceled c -> {
                if (hasResults(c.results()) && !results.hasOutput(project, job)) {
                    results.save(project, job, new JobOutput(c.results(), "canceled"));
                }
                if (!job.status().inFlight()) yield null;
                yield store.cancel(m.job(), m.lease(), "canceled by the runner", now);
            }
        };
        if (t != null && t.result() == Transition.Result.STALE) return stale(m, "lease is no longer current");
        if (t != null && t.applied()) {
            changes.job(m.job());
            metrics.transition(switch (m) {
                case RunnerMessage.Completed c -> "complete";
                case RunnerMessage.Failed f -> "fail";
                case RunnerMessage.Canceled c -> "cancel";
            });
            if (t.job().status() == JobStatus.COMPLETED) results.processLater(t.job());
            if (t.job().status() == JobStatus.PENDING) retryLater(t.job(), now);
        }
        if (attempt != null) finish(attempt, now);
        else if (t != null && t.applied()) dispatcher.jobFinished();
        return new ServerMessage.Ack(m.job());
    }

    // ---- connections -----------------------------------------------------------------------------

    /**
     * The runner's current channel closed. Its attempts get one heartbeat timeout to come back on
     * a new connection (seed 000's disconnect recovery); then they are lost.
     */
    public void connectionClosed(RunnerSession session) {
        if (shuttingDown) return;
        changes.runners();
        Instant since = clock.instant();
        for (ActiveJob a : active.ofRunner(session.runnerId())) {
            deadlines.set(DeadlineKeys.lost(a.job), since.plus(settings.heartbeatTimeout()), () -> lostCheck(a, since));
        }
    }

    /** The channel has been silent for the heartbeat timeout: its attempts are lost now. */
    public void readTimedOut(RunnerSession session) {
        LOG.warn("runner {} silent for {}: closing its channel", session.runner().slug(), settings.heartbeatTimeout());
        for (ActiveJob a : active.ofRunner(session.runnerId())) lost(a, "heartbeat timeout");
    }

    /** Graceful server shutdown: in-flight jobs stay as they are for the runners to reconnect to. */
    public void shutdown() {
        shuttingDown = true;
    }

    // ---- user cancel -----------------------------------------------------------------------------

    /** A user canceled the job in the store: tell its runner now (not on its next heartbeat). */
    public void userCanceled(Job before) {
        if (before.status().inFlight()) {
            active.get(before.uuid()).filter(a -> a.lease.matches(before.lease())).ifPresent(a -> requestCancel(a, "canceled_by_user"));
        }
        dispatcher.jobFinished();
    }

    // ---- timeouts --------------------------------------------------------------------------------

    private void acceptanceExpired(ActiveJob a) {
        if (!isCurrent(a) || a.isRunning() || a.cancelRequested) return;
        Transition t = store.requeue(a.job, a.lease, AttemptOutcome.ACCEPT_TIMEOUT, settings.maxRequeues(), clock.instant());
        if (t.applied()) {
            LOG.info("job {} not accepted within {}: back to the queue", a.job, settings.acceptanceTimeout());
            metrics.acceptance("acceptance_timeout");
            afterRequeue(a, t.job());
            sessions.of(a.runnerId).ifPresent(s -> s.send(new ServerMessage.Stale(a.job, a.lease, "acceptance_timeout")));
        } else if (t.job() != null && t.job().status() == JobStatus.RUNNING && t.job().holds(a.lease)) {
            a.started = t.job().started();
            armHardTimeout(a);
        } else {
            forget(a);
        }
    }

    private void lostCheck(ActiveJob a, Instant disconnectedAt) {
        if (!isCurrent(a)) return;
        boolean back = sessions.of(a.runnerId).isPresent() && a.lastSeen.isAfter(disconnectedAt);
        if (back) return; // reconnected and heartbeating: the read timer of the new channel covers it
        lost(a, "runner disconnected");
    }

    /** The runner is gone: requeue what never started, fail (or cancel past the hard timeout) what did. */
    private void lost(ActiveJob a, String why) {
        if (!isCurrent(a)) return;
        Instant now = clock.instant();
        if (!a.isRunning() && !a.cancelRequested) {
            Transition t = store.requeue(a.job, a.lease, AttemptOutcome.LOST_BEFORE_START, settings.maxRequeues(), now);
            if (t.applied()) {
                metrics.acceptance("requeued");
                afterRequeue(a, t.job());
                return;
            }
        } else if (a.cancelRequested) {
            // Already canceled in the store; nothing more will come from this runner.
        } else if (now.isAfter(hardDeadline(a))) {
            if (store.cancel(a.job, a.lease, "hard timeout exceeded and " + why, now).applied()) metrics.transition("hard_timeout");
        } else {
            Transition t = store.fail(a.job, a.lease, "lost contact with the runner (" + why + ")", AttemptOutcome.LOST, now);
            if (t.applied()) metrics.transition("lost");
            if (t.applied() && t.job().status() == JobStatus.PENDING) retryLater(t.job(), now);
        }
        finish(a, now);
    }

    private ServerMessage hardTimeout(ActiveJob a) {
        Transition t = store.cancel(a.job, a.lease, "hard timeout: ran longer than its timeout plus the grace period", clock.instant());
        if (t.applied()) metrics.transition("hard_timeout");
        return requestCancel(a, "timeout");
    }

    /** Marks the attempt as told to stop, pushes {@code cancel}, and starts the cancel deadline. */
    private ServerMessage requestCancel(ActiveJob a, String reason) {
        a.cancelRequested = true;
        deadlines.clear(DeadlineKeys.accept(a.job));
        deadlines.clear(DeadlineKeys.hard(a.job));
        deadlines.clear(DeadlineKeys.lost(a.job));
        deadlines.set(DeadlineKeys.cancel(a.job), clock.instant().plus(settings.cancelDeadline()), () -> cancelDeadlinePassed(a));
        ServerMessage cancel = cancelMessage(a, reason);
        sessions.of(a.runnerId).ifPresent(s -> s.send(cancel));
        return cancel;
    }

    /** No {@code canceled} in time: the job is final as canceled; the lease is revoked. */
    private void cancelDeadlinePassed(ActiveJob a) {
        if (!isCurrent(a)) return;
        LOG.warn("runner did not confirm cancel of job {} within {}", a.job, settings.cancelDeadline());
        metrics.transition("cancel_deadline");
        finish(a, clock.instant());
        sessions.of(a.runnerId).ifPresent(s -> s.send(new ServerMessage.Stale(a.job, a.lease, "cancel_deadline_passed")));
    }

    // ---- recovery --------------------------------------------------------------------------------

    /**
     * After a restart: in-flight jobs get their deadlines back (and one heartbeat timeout for their
     * runner to reconnect), claimed jobs past the acceptance window are requeued, and completed
     * jobs whose output was stored but not parsed are processed again.
     */
    public void recover() {
        Instant now = clock.instant();
        for (Job job : store.inFlightJobs()) {
            ActiveJob a = adopt(job);
            if (job.status() == JobStatus.CLAIMED && !job.claimed().plus(settings.acceptanceTimeout()).isAfter(now)) {
                acceptanceExpired(a);
                continue;
            }
            deadlines.set(DeadlineKeys.lost(a.job), now.plus(settings.heartbeatTimeout()), () -> lostCheck(a, now));
        }
        for (Job job : store.completedUnprocessedJobs()) results.process(job);
        // Queue deadlines (past ones fire on the first tick) and back-off wake-ups of pending jobs.
        for (Job job : store.pendingJobsWithQueueTimeout()) queued(job);
        for (Job job : store.pendingJobs()) {
            Instant wake = later(job.notBefore(), job.declineBackoffUntil());
            if (wake != null && wake.isAfter(now)) {
                deadlines.set(DeadlineKeys.retry(job.uuid()), wake, () -> dispatcher.jobPending(job.specId()));
            }
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private Resolution resolve(RunnerSession session, JobUuid jobId, LeaseId lease) {
        var inMemory = active.get(jobId);
        if (inMemory.isPresent() && inMemory.get().lease.matches(lease)) {
            ActiveJob a = inMemory.get();
            return a.runnerId == session.runnerId() ? new Resolution.Current(a) : new Resolution.Forbidden();
        }
        var stored = store.findJob(jobId);
        if (stored.isEmpty()) return new Resolution.Stale("no such job");
        Job job = stored.get();
        if (job.holds(lease)) {
            if (job.runnerId() == null || job.runnerId() != session.runnerId()) return new Resolution.Forbidden();
            if (job.status().inFlight()) return new Resolution.Current(adopt(job)); // not in memory yet (restart race)
            return new Resolution.Finished(job);
        }
        // Any lease that is not the current one changes nothing and is answered stale, whether it
        // is an earlier attempt of this runner or one it never held.
        List<Attempt> attempts = store.attempts(job.id());
        boolean earlierAttemptOfThisRunner = attempts.stream().anyMatch(at -> at.lease().matches(lease) && at.runnerId() == session.runnerId());
        return new Resolution.Stale(earlierAttemptOfThisRunner ? "lease is no longer current" : "lease is not valid for this job");
    }

    /** The in-memory attempt for a stored in-flight job, created with its deadlines if missing. */
    private ActiveJob adopt(Job job) {
        var existing = active.get(job.uuid());
        if (existing.isPresent() && existing.get().lease.matches(job.lease())) return existing.get();
        Instant seen = job.lastHeartbeat() != null ? job.lastHeartbeat() : job.claimed();
        ActiveJob a = new ActiveJob(job.uuid(), job.lease(), job.runnerId(), job.timeout(), job.started(), seen,
                job.lastBilledMinute() == null ? 0 : job.lastBilledMinute());
        active.put(a);
        if (a.isRunning()) armHardTimeout(a);
        else armAcceptance(a, job.claimed());
        return a;
    }

    private void armAcceptance(ActiveJob a, Instant from) {
        deadlines.set(DeadlineKeys.accept(a.job), from.plus(settings.acceptanceTimeout()), () -> acceptanceExpired(a));
    }

    private void armHardTimeout(ActiveJob a) {
        deadlines.set(DeadlineKeys.hard(a.job), hardDeadline(a), () -> {
            if (isCurrent(a) && !a.cancelRequested) hardTimeout(a);
        });
    }

    private Instant hardDeadline(ActiveJob a) {
        return a.started.plusSeconds(a.timeoutSeconds).plus(settings.jobTimeoutGrace());
    }

    private void touch(ActiveJob a) {
        Instant now = clock.instant();
        a.lastSeen = now;
        liveness.job(a.job, now);
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
        deadlines.set(DeadlineKeys.retry(job.uuid()), notBefore, () -> dispatcher.jobPending(job.specId()));
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

    private void afterRequeue(ActiveJob a, Job job) {
        forget(a);
        if (job.status() == JobStatus.PENDING) {
            Instant now = clock.instant();
            if (job.queueDeadline() != null && !job.queueDeadline().isAfter(now)) {
                // Its queue time ran out while a runner held it: it does not go round again.
                queueTimedOut(job);
                return;
            }
            if (job.declineBackoffUntil() != null && job.declineBackoffUntil().isAfter(now)) {
                // Declined by every runner of its spec: wake them when the back-off ends (there is no poll).
                deadlines.set(DeadlineKeys.retry(job.uuid()), job.declineBackoffUntil(), () -> dispatcher.jobPending(job.specId()));
            }
            dispatcher.jobPending(job.specId());
        } else {
            dispatcher.jobFinished();
        }
    }

    // ---- queue timeout -----------------------------------------------------------------------------

    /**
     * A job entered the queue: if it has a queue timeout, fail it when that passes while it is
     * still pending. The deadline is absolute (created + queue_timeout), so arming it again after a
     * restart or a requeue never extends it.
     */
    public void queued(Job job) {
        Instant deadline = job.queueDeadline();
        if (deadline == null || job.status() != JobStatus.PENDING) return;
        deadlines.set(DeadlineKeys.queue(job.uuid()), deadline, () -> store.findJob(job.uuid()).ifPresent(this::queueTimedOut));
    }

    /** Fails the job with queue_timeout if it is still pending; a claimed job is left to its runner (checked again on requeue). */
    private void queueTimedOut(Job job) {
        if (job.status() != JobStatus.PENDING) return;
        // Every claim that did not end in a requeue ended in a start or a failure: a job back in
        // the queue for an opt-in retry has left queueing behind, and its retry is not bounded here.
        if (job.attempt() > job.requeues()) return;
        String why = explainer.status(job).map(s -> "; it was waiting because: " + s.reason().message()).orElse("");
        String error = "queue_timeout: the job waited longer than its queue timeout of " + job.queueTimeout() + " s without starting" + why;
        Transition t = store.expireQueued(job.uuid(), error, clock.instant());
        if (t.applied()) {
            LOG.info("job {} failed: {}", job.uuid(), error);
            changes.job(job.uuid());
            metrics.transition("queue_timeout");
            deadlines.clear(DeadlineKeys.retry(job.uuid()));
        }
    }

    /** The attempt is over: bill its last minutes, drop it from memory and its deadlines, free its slot. */
    private void finish(ActiveJob a, Instant now) {
        bill(a, now);
        forget(a);
        dispatcher.jobFinished();
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

    private boolean isCurrent(ActiveJob a) {
        return active.get(a.job).orElse(null) == a;
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

    private static Instant later(Instant a, Instant b) {
        if (a == null) return b;
        if (b == null) return a;
        return a.isAfter(b) ? a : b;
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

    private static String errorOf(RunnerMessage.Failed f) {
        return f.error() == null || f.error().isBlank() ? "the runner reported failure" : f.error();
    }

    private static boolean hasResults(List<IterationResult> results) {
        return results != null && !results.isEmpty();
    }
}

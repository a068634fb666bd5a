package dev.baton.dispatch;

import static dev.baton.dispatch.LifecycleContext.notYours;
import static dev.baton.dispatch.LifecycleContext.stale;

import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Decline;
import dev.baton.store.Job;
import dev.baton.store.Transition;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner's words while an attempt is under way, before its final word: {@code preparing}
 * (extends the acceptance window), {@code running} (the start), {@code heartbeat} (liveness,
 * billing, the hard timeout), {@code log} (live output) and {@code declined} (back to the queue).
 * Each is first resolved against the current lease ({@link AttemptResolver}); a word of an
 * attempt told to stop is answered {@code cancel} again.
 */
public final class RunningMessages {
    private static final Logger LOG = LoggerFactory.getLogger(RunningMessages.class);

    /** A runner's decline reason as stored: at most this many characters (the message itself is size-bounded). */
    static final int MAX_DECLINE_REASON = 1024;

    private final LifecycleContext ctx;
    private final AttemptResolver resolver;
    private final Cancels cancels;

    RunningMessages(LifecycleContext ctx, AttemptResolver resolver, Cancels cancels) {
        this.ctx = ctx;
        this.resolver = resolver;
        this.cancels = cancels;
    }

    public ServerMessage preparing(RunnerSession session, RunnerMessage.Preparing m) {
        return switch (resolver.resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> {
                if (a.cancelRequested) yield ctx.cancelMessage(a, "canceled");
                ctx.touch(a);
                if (!a.isRunning()) {
                    Instant until = ctx.clock.instant().plus(ctx.settings.acceptanceTimeout());
                    if (!ctx.store.liveness().extendAcceptance(a.job, a.lease, until)) {
                        // Not claimed under this lease any more (running already, or ended by another node's sweep).
                        Job now = ctx.store.runs().findJob(a.job).orElse(null);
                        if (now == null || !now.holds(a.lease) || !now.status().inFlight()) {
                            ctx.forget(a);
                            yield stale(m, "lease is no longer current");
                        }
                    }
                    ctx.wakeAt(DeadlineKeys.accept(a.job), until);
                }
                yield new ServerMessage.Ack(m.job());
            }
            case Resolution.Finished(Job j) -> stale(m, "job is " + j.status().wireName());
            case Resolution.Stale(String reason) -> stale(m, reason);
            case Resolution.Forbidden() -> notYours(m.job());
        };
    }

    public ServerMessage running(RunnerSession session, RunnerMessage.Running m) {
        return switch (resolver.resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> start(a, m);
            case Resolution.Finished(Job j) ->
                j.status() == JobStatus.CANCELED
                        ? new ServerMessage.Cancel(m.job(), m.lease(), "canceled", 0)
                        : stale(m, "job is " + j.status().wireName());
            case Resolution.Stale(String reason) -> stale(m, reason);
            case Resolution.Forbidden() -> notYours(m.job());
        };
    }

    private ServerMessage start(ActiveJob a, RunnerMessage.Running m) {
        if (a.cancelRequested) return ctx.cancelMessage(a, "canceled");
        ctx.touch(a);
        if (a.isRunning()) return new ServerMessage.Ack(m.job()); // resent running: liveness only
        Instant now = ctx.clock.instant();
        Transition t = ctx.store.transitions().start(a.job, a.lease, now, ctx.settings.jobTimeoutGrace());
        switch (t.result()) {
            case APPLIED, DUPLICATE -> {
                Job job = t.job();
                ctx.recordFingerprint(a, m.fingerprint());
                ctx.recordMachine(a, m.machine());
                a.started = job.started() == null ? now : job.started();
                ctx.deadlines.clear(DeadlineKeys.accept(a.job));
                ctx.hardTimeoutWake(a);
                if (t.applied()) {
                    ctx.changes.job(a.job);
                    ctx.metrics.transition("start");
                    ctx.metrics.acceptance("accepted");
                    ctx.metrics.queueDuration(job.priority(), Duration.between(job.created(), a.started));
                }
                return new ServerMessage.Ack(m.job());
            }
            case CONFLICT -> {
                if (t.job().status() == JobStatus.CANCELED) return ctx.cancelMessage(a, "canceled");
                ctx.forget(a);
                return stale(m, "job is " + t.job().status().wireName());
            }
            default -> { // STALE, or NOT_FOUND: the job went away under us
                ctx.forget(a);
                return stale(m, "lease is no longer current");
            }
        }
    }

    public ServerMessage heartbeat(RunnerSession session, RunnerMessage.Heartbeat m) {
        if (m.job() == null) return new ServerMessage.Ack(null);
        if (m.lease() == null)
            return new ServerMessage.Error("invalid_message", "a heartbeat naming a job must carry its lease");
        return switch (resolver.resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> {
                if (a.cancelRequested) yield ctx.cancelMessage(a, "canceled");
                ctx.touch(a);
                if (a.isRunning()) {
                    Instant now = ctx.clock.instant();
                    if (now.isAfter(ctx.hardDeadline(a))) yield cancels.hardTimeout(a);
                    ctx.bill(a, now);
                }
                yield new ServerMessage.Ack(m.job());
            }
            case Resolution.Finished(Job j) ->
                new ServerMessage.Stale(
                        m.job(), m.lease(), "job is " + j.status().wireName());
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
        return switch (resolver.resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> {
                ctx.touch(a);
                ctx.logs.append(a.job, a.lease, m);
                yield new ServerMessage.Ack(m.job());
            }
            case Resolution.Finished(Job j) -> stale(m, "job is " + j.status().wireName());
            case Resolution.Stale(String reason) -> stale(m, reason);
            case Resolution.Forbidden() -> notYours(m.job());
        };
    }

    public ServerMessage declined(RunnerSession session, RunnerMessage.Declined m) {
        return switch (resolver.resolve(session, m.job(), m.lease())) {
            case Resolution.Current(ActiveJob a) -> {
                if (a.isRunning())
                    yield new ServerMessage.Error(
                            "cannot_decline", "job " + m.job() + " is already running; report failed instead");
                DeclineCode code = m.declineCode();
                LOG.info(
                        "runner {} declined job {} ({}): {}",
                        session.runner().slug(),
                        m.job(),
                        code.wireName(),
                        m.reason());
                ctx.dispatcher.runnerDeclined(session.runnerId());
                ctx.metrics.declined(code.wireName());
                Transition t = ctx.store
                        .transitions()
                        .requeue(
                                a.job,
                                a.lease,
                                AttemptOutcome.DECLINED,
                                new Decline(code.wireName(), bounded(m.reason())),
                                ctx.settings.maxRequeues(),
                                ctx.settings.declineBackoff(),
                                ctx.clock.instant());
                yield switch (t.result()) {
                    case APPLIED -> {
                        ctx.forget(a);
                        ctx.recordFingerprint(a, m.fingerprint());
                        ctx.infrastructureFailure(session.runnerId());
                        ctx.afterRequeue(t.job());
                        yield new ServerMessage.Ack(m.job());
                    }
                    case CONFLICT -> {
                        if (t.job().status() == JobStatus.CANCELED) yield new ServerMessage.Ack(m.job());
                        yield new ServerMessage.Error(
                                "cannot_decline",
                                "job " + m.job() + " is " + t.job().status().wireName());
                    }
                    default -> {
                        ctx.forget(a);
                        yield stale(m, "lease is no longer current");
                    }
                };
            }
            case Resolution.Finished(Job j) -> stale(m, "job is " + j.status().wireName());
            case Resolution.Stale(String reason) -> stale(m, reason);
            case Resolution.Forbidden() -> notYours(m.job());
        };
    }

    private static String bounded(String reason) {
        if (reason == null) return null;
        return reason.length() <= MAX_DECLINE_REASON ? reason : reason.substring(0, MAX_DECLINE_REASON);
    }
}

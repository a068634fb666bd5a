package dev.baton.dispatch;

import static dev.baton.dispatch.LifecycleContext.notYours;
import static dev.baton.dispatch.LifecycleContext.stale;

import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Job;
import dev.baton.store.Transition;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner's final word on an attempt — {@code completed}, {@code failed} or {@code canceled}:
 * applied once under the current lease (the output stored first, by {@link FinalOutput}), and
 * acknowledged every time it is resent, even after the job has moved on to another attempt. Also
 * what follows it: output processing, a retry, quarantine of a runner that lost the job, and the
 * end of a canary job.
 */
public final class FinalMessages {
    private static final Logger LOG = LoggerFactory.getLogger(FinalMessages.class);

    private final LifecycleContext ctx;
    private final AttemptResolver resolver;
    private final FinalOutput words;

    FinalMessages(LifecycleContext ctx, AttemptResolver resolver) {
        this.ctx = ctx;
        this.resolver = resolver;
        this.words = new FinalOutput(ctx.store, ctx.results);
    }

    /** {@code completed}, {@code failed} or {@code canceled}: applied once, acknowledged every time it is resent. */
    public ServerMessage terminal(RunnerSession session, RunnerMessage.Terminal m) {
        Resolution r = resolver.resolve(session, m.job(), m.lease());
        ActiveJob attempt = r instanceof Resolution.Current(ActiveJob a) ? a : null;
        if (r instanceof Resolution.Stale(String reason)) {
            // A resend of a final word that was applied when the attempt ended (the job has been
            // retried since): acknowledge it so the runner drops it from its outbox.
            return attemptEndedAs(m) ? new ServerMessage.Ack(m.job()) : stale(m, reason);
        }
        if (r instanceof Resolution.Forbidden) return notYours(m.job());

        Instant now = ctx.clock.instant();
        // The common case, a completed of the attempt this node holds, needs no read of the job:
        // the transition's compare-and-set under the lease is the check (as it is after a read,
        // which is old by the time the transition runs). Other words, a canceled attempt (its
        // runner may answer completed after cancel) and attempts not held here read the job first.
        Transition t = attempt != null && !attempt.cancelRequested && m instanceof RunnerMessage.Completed c
                ? completeHeld(attempt, c, now)
                : finalWord(
                        m,
                        r instanceof Resolution.Finished(Job finished)
                                ? finished
                                : ctx.store.runs().findJob(m.job()).orElseThrow(),
                        now);
        if (t != null && t.result() == Transition.Result.STALE) return stale(m, "lease is no longer current");
        if (t != null && t.applied()) {
            ctx.changes.job(m.job());
            ctx.metrics.transition(
                    switch (m) {
                        case RunnerMessage.Completed c -> "complete";
                        case RunnerMessage.Failed f -> "fail";
                        case RunnerMessage.Canceled c -> "cancel";
                    });
            // Only a `completed` completes a job, and it stored its output just before the transition.
            if (t.job().status() == JobStatus.COMPLETED && m instanceof RunnerMessage.Completed c)
                ctx.results.processLater(t.job(), FinalOutput.outputOf(c));
            if (t.job().status() == JobStatus.PENDING) ctx.retryLater(t.job(), now);
            // The job's runner: resolve refused any other (not_your_job).
            if (m instanceof RunnerMessage.Failed f && f.runnerLost()) ctx.infrastructureFailure(session.runnerId());
            if (t.job().canaryRunnerId() != null
                    && !t.job().status().inFlight()
                    && t.job().status() != JobStatus.PENDING) {
                canaryEnded(t.job(), m instanceof RunnerMessage.Completed c && passed(c.results()), now);
            }
        }
        if (attempt != null) ctx.finish(attempt, now);
        else if (t != null && t.applied()) ctx.jobFinished();
        return new ServerMessage.Ack(m.job());
    }

    /** A completed of the attempt this node holds (not told to cancel): its output under its attempt, then the transition ({@link FinalOutput}). */
    private Transition completeHeld(ActiveJob a, RunnerMessage.Completed c, Instant now) {
        return words.complete(
                ctx.store.organizations().projectUuid(a.projectId).orElseThrow(), a.job, a.attempt, a.lease, c, now);
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
        var project = ctx.store.organizations().projectUuid(job.projectId()).orElseThrow();
        int attempt = job.attempt(); // the lease's attempt: the job holds it
        return switch (m) {
            case RunnerMessage.Completed c -> {
                // Under its own lease a completed overrides a heartbeat-timeout failure (docs/protocol.md).
                if (job.status() == JobStatus.COMPLETED
                        || job.status() == JobStatus.PROCESSED
                        || job.status() == JobStatus.CANCELED) yield null;
                yield words.complete(project, m.job(), attempt, m.lease(), c, now);
            }
            case RunnerMessage.Failed f -> {
                if (job.status() == JobStatus.FAILED && !ctx.results.hasOutput(project, job)) {
                    // A heartbeat-timeout failure, now with the runner's own account: keep it.
                    ctx.results.save(project, job.uuid(), attempt, new JobOutput(f.results(), FinalOutput.errorOf(f)));
                }
                if (!job.status().inFlight()) yield null;
                yield words.fail(project, attempt, f, now);
            }
            case RunnerMessage.Canceled c -> {
                // Its results are kept while the job runs (it cancels on its own) or while the server
                // still waits for its answer to a cancel. Once the server finalized the job (the
                // cancel deadline passed; a hard timeout is a cancel with the same deadline) a late
                // canceled changes nothing, output included (issue 40).
                boolean owed = job.status() == JobStatus.CANCELED && cancelStillOwed(m, now);
                if ((job.status().inFlight() || owed)
                        && hasResults(c.results())
                        && !ctx.results.hasOutput(project, job)) {
                    ctx.results.save(project, job.uuid(), attempt, new JobOutput(c.results(), "canceled"));
                }
                if (owed) ctx.store.liveness().clearCancelDeadline(m.job(), m.lease()); // the runner answered in time
                if (!job.status().inFlight()) yield null;
                yield ctx.store.transitions().cancel(m.job(), m.lease(), "canceled by the runner", now);
            }
        };
    }

    /**
     * Whether the job, canceled under {@code m}'s lease, still waits for its runner's answer: its
     * cancel deadline is set and not passed (the sweep clears it when it passes, but may not have
     * run yet). The store keeps the deadline on the job; {@code LeaseOffers.cancelDeadline} reads it
     * by lease for either transport.
     */
    private boolean cancelStillOwed(RunnerMessage.Terminal m, Instant now) {
        return ctx.store
                .leaseOffers()
                .cancelDeadline(m.lease())
                .filter(now::isBefore)
                .isPresent();
    }

    /** Whether the attempt of {@code m}'s lease ended with the outcome {@code m} reports: {@code m} is a resend. */
    private boolean attemptEndedAs(RunnerMessage.Terminal m) {
        AttemptOutcome said = switch (m) {
            case RunnerMessage.Completed c -> AttemptOutcome.COMPLETED;
            case RunnerMessage.Failed f -> AttemptOutcome.FAILED;
            case RunnerMessage.Canceled c -> AttemptOutcome.CANCELED;
        };
        return ctx.store
                .runs()
                .findJob(m.job())
                .map(job -> ctx.store.runs().attempts(job.id()).stream()
                        .anyMatch(at -> at.lease().matches(m.lease()) && at.outcome() == said))
                .orElse(false);
    }

    /**
     * A canary job ended (docs/scheduling.md, "Canary release"): passed — completed with every
     * iteration exiting 0 — it lifts its runner's quarantine as an admin's release would; otherwise
     * the runner stays quarantined. After the job's own commit: a failure here never undoes it.
     */
    private void canaryEnded(Job job, boolean passed, Instant now) {
        long runnerId = job.canaryRunnerId();
        if (!passed) {
            LOG.warn(
                    "canary job {} for runner {} did not pass ({}); the runner stays quarantined",
                    job.uuid(),
                    runnerId,
                    job.status().wireName());
            return;
        }
        try {
            var runner = ctx.store.runners().releaseRunner(runnerId, now);
            LOG.info("canary job {} passed: runner {} released from quarantine", job.uuid(), runner.slug());
            ctx.changes.runners();
        } catch (RuntimeException e) {
            LOG.warn(
                    "canary job {} passed but runner {} could not be released: {}", job.uuid(), runnerId, e.toString());
        }
    }

    private static boolean passed(List<IterationResult> results) {
        return results != null && !results.isEmpty() && results.stream().allMatch(r -> r.exitCode() == 0);
    }

    private static boolean hasResults(List<IterationResult> results) {
        return results != null && !results.isEmpty();
    }
}

package dev.baton.dispatch;

import dev.baton.dispatch.cluster.ClusterEvent;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Deadline;
import dev.baton.store.Job;
import dev.baton.store.Transition;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every deadline that changes a job, and the sweep that acts on them: the acceptance window, a
 * lost runner (disconnected or silent), the hard timeout, the cancel deadline, the queue timeout,
 * and nodes found dead. Each deadline is a column in the store written with the transition that
 * starts it; the sweep acts on the due ones under a row lock, so exactly one node acts on each
 * (docs/decisions/0006-cluster.md). This node's timers only wake the sweep early. What a sweep
 * decided reaches the runner's node over the {@link dev.baton.dispatch.cluster.ClusterBus}.
 */
public final class DeadlineSweep {
    private static final Logger LOG = LoggerFactory.getLogger(DeadlineSweep.class);

    /** Jobs one sweep transaction acts on at most, per kind of deadline; a sweep takes batches until none are due. */
    private static final int SWEEP_BATCH = 100;

    private static final Runnable NOTHING = () -> {};

    private final LifecycleContext ctx;
    private final Cancels cancels;
    /** One sweep at a time on this node (other nodes are kept out by the row locks). */
    private final ReentrantLock sweeping = new ReentrantLock();

    DeadlineSweep(LifecycleContext ctx, Cancels cancels) {
        this.ctx = ctx;
        this.cancels = cancels;
    }

    /**
     * Acts on every deadline due in the store, whichever node set it: nodes found dead (their
     * runners are treated as disconnected), acceptance windows, lost runners, hard timeouts,
     * cancel deadlines and queue timeouts. Each runs under the job's row lock in the store; what
     * follows (messages to runners, wake-ups) runs after the commit, here and on the other nodes.
     * Returns how many jobs were acted on.
     */
    public int sweep() {
        if (ctx.shuttingDown()) return 0;
        sweeping.lock();
        try {
            Instant now = ctx.clock.instant();
            for (String dead : ctx.store
                    .nodes()
                    .expireNodes(
                            ctx.settings.nodeId(),
                            now.minus(ctx.settings.nodeTimeout()),
                            now,
                            ctx.settings.heartbeatTimeout())) {
                LOG.warn(
                        "node {} missed its heartbeats for {}: its runners are treated as disconnected",
                        dead,
                        ctx.settings.nodeTimeout());
                ctx.metrics.transition("node_lost");
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

    /**
     * A job entered the queue: if it has a queue timeout, wake the sweep when that passes (the
     * deadline, created + queue_timeout, is the store's; the sweep fails the job if still pending).
     */
    public void queued(Job job) {
        Instant deadline = job.queueDeadline();
        if (deadline == null || job.status() != JobStatus.PENDING) return;
        ctx.wakeAt(DeadlineKeys.queue(job.uuid()), deadline);
    }

    private int sweep(Deadline kind, Instant now, Function<Job, Runnable> act) {
        int acted = 0;
        while (true) {
            List<Runnable> effects =
                    ctx.store.liveness().sweepDue(kind, now, SWEEP_BATCH, job -> withChange(job, act.apply(job)));
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

    /** The effect of an act that changed the job, then word to the console's live pages (docs/console.md). */
    private Runnable withChange(Job job, Runnable effect) {
        if (effect == NOTHING) return effect;
        return () -> {
            effect.run();
            ctx.changes.job(job.uuid());
            ctx.changes.runners();
        };
    }

    // The acts below run inside the sweep's transaction, on a locked row: store transitions only.

    private Runnable acceptanceExpired(Job job) {
        Instant now = ctx.clock.instant();
        Transition t = ctx.store
                .transitions()
                .requeue(job.uuid(), job.lease(), AttemptOutcome.ACCEPT_TIMEOUT, ctx.settings.maxRequeues(), now);
        if (!t.applied()) return NOTHING;
        return () -> {
            LOG.info("job {} not accepted within {}: back to the queue", job.uuid(), ctx.settings.acceptanceTimeout());
            ctx.metrics.acceptance("acceptance_timeout");
            attemptEnded(job, "acceptance_timeout");
            ctx.infrastructureFailure(job.runnerId());
            ctx.afterRequeue(t.job());
        };
    }

    /** The runner is gone: requeue what never started, fail (or cancel past the hard timeout) what did. */
    private Runnable lostExpired(Job job) {
        Instant now = ctx.clock.instant();
        if (job.status() == JobStatus.CLAIMED) {
            Transition t = ctx.store
                    .transitions()
                    .requeue(
                            job.uuid(), job.lease(), AttemptOutcome.LOST_BEFORE_START, ctx.settings.maxRequeues(), now);
            if (!t.applied()) return NOTHING;
            return () -> {
                ctx.metrics.acceptance("requeued");
                attemptEnded(job, null);
                ctx.infrastructureFailure(job.runnerId());
                ctx.afterRequeue(t.job());
            };
        }
        Instant hard = job.started().plusSeconds(job.timeout()).plus(ctx.settings.jobTimeoutGrace());
        if (now.isAfter(hard)) {
            Transition t = ctx.store
                    .transitions()
                    .cancel(
                            job.uuid(),
                            job.lease(),
                            "hard timeout exceeded and lost contact with the runner",
                            now,
                            null);
            return () -> {
                if (t.applied()) ctx.metrics.transition("hard_timeout");
                attemptEnded(job, null);
                ctx.jobFinished();
            };
        }
        Transition t = ctx.store
                .transitions()
                .fail(
                        job.uuid(),
                        job.lease(),
                        "lost contact with the runner (disconnected or silent past the heartbeat timeout)",
                        AttemptOutcome.LOST,
                        now);
        return () -> {
            if (t.applied()) ctx.metrics.transition("lost");
            attemptEnded(job, null);
            if (t.applied()) ctx.infrastructureFailure(job.runnerId());
            if (t.applied() && t.job().status() == JobStatus.PENDING) ctx.retryLater(t.job(), now);
            else ctx.jobFinished();
        };
    }

    private Runnable hardExpired(Job job) {
        Instant now = ctx.clock.instant();
        Transition t = ctx.store
                .transitions()
                .cancel(
                        job.uuid(),
                        job.lease(),
                        "hard timeout: ran longer than its timeout plus the grace period",
                        now,
                        now.plus(ctx.settings.cancelDeadline()));
        if (!t.applied()) return NOTHING;
        return () -> {
            ctx.metrics.transition("hard_timeout");
            cancels.runnerCancel(job.uuid(), job.attempt(), job.runnerId(), "timeout", job.lease());
            ctx.bus.publish(new ClusterEvent.CancelRunner(job.uuid(), job.attempt(), job.runnerId(), "timeout"));
            ctx.jobFinished();
        };
    }

    /** No {@code canceled} in time: the job is final as canceled; the lease is revoked. */
    private Runnable cancelExpired(Job job) {
        return () -> {
            LOG.warn("runner did not confirm cancel of job {} within {}", job.uuid(), ctx.settings.cancelDeadline());
            ctx.metrics.transition("cancel_deadline");
            attemptEnded(job, "cancel_deadline_passed");
        };
    }

    /** Fails the job with queue_timeout; the store selected it only while pending and never started. */
    private Runnable queueExpired(Job job) {
        String why = ctx.explainer
                .status(job)
                .map(s -> "; it was waiting because: " + s.reason().message())
                .orElse("");
        String error = "queue_timeout: the job waited longer than its queue timeout of " + job.queueTimeout()
                + " s without starting" + why;
        Transition t = ctx.store.transitions().expireQueued(job.uuid(), error, ctx.clock.instant());
        if (!t.applied()) return NOTHING;
        return () -> {
            LOG.info("job {} failed: {}", job.uuid(), error);
            ctx.metrics.transition("queue_timeout");
            ctx.deadlines.clear(DeadlineKeys.retry(job.uuid()));
        };
    }

    // ---- what a sweep decided, on every node ----------------------------------------------------------

    /** An attempt ended by a deadline: here, and on the other nodes (one of which may hold its runner). */
    private void attemptEnded(Job job, String reason) {
        if (job.runnerId() == null) return;
        attemptEnded(job.uuid(), job.attempt(), job.runnerId(), reason, job.lease());
        ctx.bus.publish(new ClusterEvent.AttemptEnded(job.uuid(), job.attempt(), job.runnerId(), reason));
    }

    /**
     * Attempt {@code attempt} of the job is over: dropped from memory (billing its last minutes)
     * and, when {@code reason} is given and the runner's channel is on this node, the runner is
     * told {@code stale}. {@code lease} is null when another node sent this (leases never travel).
     */
    public void attemptEnded(JobUuid job, int attempt, long runnerId, String reason, LeaseId lease) {
        Optional<ActiveJob> local = ctx.active.get(job).filter(a -> a.attempt == attempt);
        local.ifPresent(a -> {
            ctx.bill(a, ctx.clock.instant());
            ctx.forget(a);
        });
        if (reason == null) return;
        Optional<RunnerSession> session = ctx.sessions.of(runnerId);
        if (session.isEmpty()) return;
        LeaseId known = local.map(a -> a.lease).orElse(lease);
        if (known == null) known = ctx.leaseOf(job, attempt);
        if (known != null) session.get().send(new ServerMessage.Stale(job, known, reason));
    }
}

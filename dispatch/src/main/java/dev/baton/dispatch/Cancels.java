package dev.baton.dispatch;

import dev.baton.dispatch.cluster.ClusterEvent;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.store.Job;
import dev.baton.store.Transition;
import java.time.Instant;
import java.util.Optional;

/**
 * Telling a runner to stop: a user's cancel, a hard timeout seen at a heartbeat, and a cancel
 * decided on another node. The job is canceled in the store first (the cancel deadline is a
 * column there); the runner is pushed {@code cancel} wherever it is connected, and its lease stays
 * valid for its {@code canceled}. The deadlines that follow are {@link DeadlineSweep}'s.
 */
public final class Cancels {
    private final LifecycleContext ctx;

    Cancels(LifecycleContext ctx) {
        this.ctx = ctx;
    }

    /** A user canceled the job in the store: tell its runner now (not on its next heartbeat), wherever it is connected. */
    public void userCanceled(Job before) {
        if (before.status().inFlight() && before.lease() != null && before.runnerId() != null) {
            runnerCancel(before.uuid(), before.attempt(), before.runnerId(), "canceled_by_user", before.lease());
            ctx.bus.publish(new ClusterEvent.CancelRunner(
                    before.uuid(), before.attempt(), before.runnerId(), "canceled_by_user"));
        }
        ctx.jobFinished();
    }

    /** The job was canceled while attempt {@code attempt} ran: its runner, if connected here, is told to stop. */
    public void runnerCancel(JobUuid job, int attempt, long runnerId, String reason, LeaseId lease) {
        Optional<ActiveJob> local = ctx.active.get(job).filter(a -> a.attempt == attempt);
        if (local.isPresent()) {
            requestCancel(local.get(), reason);
            return;
        }
        Optional<RunnerSession> session = ctx.sessions.of(runnerId);
        if (session.isEmpty()) return;
        LeaseId known = lease != null ? lease : ctx.leaseOf(job, attempt);
        if (known != null)
            session.get().send(new ServerMessage.Cancel(job, known, reason, (int)
                    ctx.settings.cancelDeadline().toSeconds()));
    }

    /** A heartbeat of an attempt past its hard deadline: canceled in the store, the runner told to stop. */
    ServerMessage hardTimeout(ActiveJob a) {
        Instant now = ctx.clock.instant();
        Transition t = ctx.store
                .transitions()
                .cancel(
                        a.job,
                        a.lease,
                        "hard timeout: ran longer than its timeout plus the grace period",
                        now,
                        now.plus(ctx.settings.cancelDeadline()));
        if (t.applied()) ctx.metrics.transition("hard_timeout");
        return requestCancel(a, "timeout");
    }

    /** Marks the attempt as told to stop, pushes {@code cancel}; the cancel deadline is in the store. */
    private ServerMessage requestCancel(ActiveJob a, String reason) {
        a.cancelRequested = true;
        ctx.deadlines.clear(DeadlineKeys.accept(a.job));
        ctx.deadlines.clear(DeadlineKeys.hard(a.job));
        ctx.deadlines.clear(DeadlineKeys.lost(a.job));
        ctx.wakeAt(DeadlineKeys.cancel(a.job), ctx.clock.instant().plus(ctx.settings.cancelDeadline()));
        ServerMessage cancel = ctx.cancelMessage(a, reason);
        ctx.sessions.of(a.runnerId).ifPresent(s -> s.send(cancel));
        return cancel;
    }
}

package dev.baton.router;

import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.router.HeldJob.State;
import dev.baton.router.policy.SchedulingPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs the router holds under the server's leases, from the moment one comes from upstream
 * until the server has its result (the outbox keeps results on disk until then): offered to the
 * waiting runners in the policy's order, offered again when a runner declines it or is lost
 * before starting it, declined upstream when no runner behind the router can take it, reported
 * lost upstream when its runner disappears mid-run, and dropped when the server cancels or
 * fences it.
 */
final class HeldJobs {
    private static final Logger log = LoggerFactory.getLogger(HeldJobs.class);

    private final RouterSettings settings;
    private final SchedulingPolicy policy;
    private final Outbox outbox;
    private final RouterMetrics metrics;
    private final Clock clock;
    private final RouterState state;
    private final UpstreamLink link;

    HeldJobs(
            RouterSettings settings,
            SchedulingPolicy policy,
            Outbox outbox,
            RouterMetrics metrics,
            Clock clock,
            RouterState state,
            UpstreamLink link) {
        this.settings = settings;
        this.policy = policy;
        this.outbox = outbox;
        this.metrics = metrics;
        this.clock = clock;
        this.state = state;
        this.link = link;
    }

    // ---- what the server says about a job ---------------------------------------------------------

    /** A job from upstream: held for a runner behind the router. */
    void received(ClaimedJob claimed) {
        Instant now = clock.instant();
        HeldJob h = new HeldJob(claimed.uuid(), claimed.lease(), claimed, State.QUEUED, now);
        Map<String, String> labels = link.jobArrived();
        if (labels != null) h.labels = labels;
        state.jobs.put(h.id, h);
        metrics.received();
        log.info(
                "job {} attempt {} ({}) held for a runner",
                claimed.uuid(),
                claimed.attempt(),
                claimed.spec().slug());
        offer();
        link.askUpstream();
    }

    /** The server answered a result (whatever it said, it needs no resend): it leaves the outbox. */
    void resultTaken(UpstreamReplies.Sent s) {
        HeldJob h = state.jobs.get(s.job);
        if (h != null && !h.lease.equals(s.lease)) return; // a newer attempt's result may be in the outbox now
        outbox.deleteResult(s.job);
        if (h != null && h.state == State.FINISHING) {
            state.jobs.remove(s.job);
            metrics.forwarded();
            log.info("job {}: result acknowledged upstream", s.job);
        }
    }

    /** The server cancels a job: its runner is told (now, or when it comes back); one that nobody has is canceled by the router. */
    void cancel(ServerMessage.Cancel c, String relayedTo) {
        HeldJob h = state.jobs.get(c.job());
        if (h == null || !h.lease.equals(c.lease())) return;
        switch (h.state) {
            case QUEUED -> {
                // Nobody behind the router has it: the router itself acknowledges the cancel.
                RunnerMessage.Canceled done = new RunnerMessage.Canceled(h.id, h.lease, List.of());
                outbox.writeResult(done, 1);
                h.state = State.FINISHING;
                link.sendUp(h, done);
            }
            case OFFERED, RUNNING -> {
                if (h.owner.equals(relayedTo)) return;
                Downstream owner = state.runners.get(h.owner);
                if (owner != null && owner.link != null) owner.link.send(c);
                else h.pendingCancel = c;
            }
            case FINISHING -> {}
        }
    }

    /** The server says the lease is no longer current: the job is dropped, and its runner told. */
    void stale(ServerMessage.Stale s, String relayedTo) {
        HeldJob h = state.jobs.get(s.job());
        if (h == null || !h.lease.equals(s.lease())) return;
        state.jobs.remove(s.job());
        if (h.state == State.FINISHING) outbox.deleteResult(h.id);
        if (h.state == State.RUNNING) state.usage.ended(h.id, clock.instant());
        else state.usage.forget(h.id);
        Downstream owner = h.owner == null ? null : state.runners.get(h.owner);
        if (owner != null && owner.link != null && h.state != State.FINISHING && !owner.name.equals(relayedTo))
            owner.link.send(s);
        log.info("job {}: lease no longer current upstream ({})", s.job(), s.reason());
        offer();
        link.askUpstream();
    }

    // ---- what a runner behind the router does with a job ---------------------------------------------

    /**
     * The server acknowledged a started job's message about an attempt the router does not hold:
     * after a restart of the router, a runner carrying on with a job it had started. The router
     * takes it on (the server still fences it by the lease) instead of making the runner stop good
     * work. Only on the server's word: an attempt that ended (canceled, finished, moved) is answered
     * otherwise, and taking it on would show it running and report it lost when its runner leaves.
     */
    void adopt(UpstreamReplies.Sent s) {
        if (state.jobs.containsKey(s.job)) return; // its result came meanwhile, or the server handed the job out again
        Instant now = clock.instant();
        HeldJob h = new HeldJob(s.job, s.lease, null, State.RUNNING, now);
        h.owner = s.from.name;
        if (s.from.link == null) h.ownerGoneSince = now;
        state.jobs.put(s.job, h);
        log.info("job {}: taken on from runner {} (held before a router restart)", s.job, s.from.name);
    }

    /** A runner declined the job it was offered: offered to another runner, or declined upstream when none is left. */
    void declined(Downstream r, HeldJob h, RunnerMessage.Declined d) {
        if (h.state != State.OFFERED) {
            // Started (or finished): as the server answers a decline of a running job.
            r.answers.answer(new ServerMessage.Error(
                    "cannot_decline", "job " + h.id + " is already running; report failed instead"));
            return;
        }
        r.answers.answer(new ServerMessage.Ack(h.id));
        metrics.downstreamDecline(d.declineCode());
        h.declinedBy.add(r.name);
        state.usage.forget(h.id);
        h.lastDeclineCode = d.declineCode();
        h.lastDeclineReason = r.name + ": " + (d.reason() == null ? "declined" : d.reason());
        h.lastDeclineFingerprint = d.fingerprint();
        h.state = State.QUEUED;
        h.owner = null;
        if (noRunnerLeftFor(h)) {
            declineUpstream(
                    h,
                    h.lastDeclineCode,
                    "every runner behind router " + settings.name() + " for this spec declined it ("
                            + h.lastDeclineReason + ")");
        } else {
            offer();
        }
        link.askUpstream();
    }

    /** Hands held jobs to waiting runners, in the policy's order (arrival order among equals). */
    void offer() {
        Instant now = clock.instant();
        List<HeldJob> queued = new ArrayList<>();
        for (HeldJob h : state.jobs.values()) if (h.state == State.QUEUED) queued.add(h);
        if (queued.isEmpty()) return;
        Comparator<ProjectUuid> order = policy.order(state.usage, now);
        queued.sort((a, b) -> a.project() == null || b.project() == null ? 0 : order.compare(a.project(), b.project()));
        for (HeldJob h : queued) {
            for (Downstream r : UpstreamView.warmFirst(state.runners.values(), h)) {
                if (!r.canTake(h)) continue;
                h.state = State.OFFERED;
                h.owner = r.name;
                h.windowStart = now;
                state.usage.started(h.id, h.project(), now);
                r.free--;
                if (r.free == 0) r.waiting = false;
                r.link.send(new ServerMessage.Job(h.claimed));
                metrics.offered(Duration.between(h.received, now));
                log.info("job {} offered to runner {}", h.id, r.name);
                break;
            }
        }
    }

    // ---- time ------------------------------------------------------------------------------------

    /** Lost runners, acceptance windows and keep-alives of the held jobs, at {@code now}. */
    void tick(Instant now) {
        Duration hbTimeout = settings.heartbeatTimeout();
        for (HeldJob h : List.copyOf(state.jobs.values())) {
            if (h.ownerGoneSince != null
                    && !now.isBefore(h.ownerGoneSince.plus(hbTimeout))
                    && h.state != State.FINISHING) {
                lost(h, now);
                continue;
            }
            if ((h.state == State.QUEUED || h.state == State.OFFERED)
                    && h.claimed != null
                    && !now.isBefore(h.windowStart.plus(settings.acceptanceWindow()))) {
                Downstream owner = h.owner == null ? null : state.runners.get(h.owner);
                if (owner != null && owner.link != null)
                    owner.link.send(new ServerMessage.Stale(h.id, h.lease, "acceptance_timeout"));
                declineUpstream(
                        h,
                        h.lastDeclineReason == null ? DeclineCode.OTHER : h.lastDeclineCode,
                        "no runner behind router " + settings.name() + " accepted it within "
                                + settings.acceptanceWindow().toSeconds() + " s"
                                + (h.lastDeclineReason == null ? "" : " (last decline: " + h.lastDeclineReason + ")"));
                continue;
            }
            if ((h.state == State.QUEUED || h.state == State.OFFERED)
                    && !now.isBefore(h.lastKeepAlive.plus(settings.keepAlive()))) {
                link.keepAlive(h, now);
            }
        }
    }

    /**
     * The runner holding {@code h} is gone. A job it had not started goes to another runner behind
     * the router (nothing that never started is failed for the runner's sake); a started one is
     * reported upstream as lost, which the server handles as it handles a runner it lost itself.
     */
    private void lost(HeldJob h, Instant now) {
        String runner = h.owner;
        h.ownerGoneSince = null;
        metrics.runnerLost();
        if (h.state == State.OFFERED) {
            state.usage.forget(h.id);
            h.declinedBy.add(runner);
            h.lastDeclineReason = runner + ": lost before it started the job";
            h.state = State.QUEUED;
            h.owner = null;
            h.pendingCancel = null;
            log.warn("job {}: runner {} lost before starting it; offered again", h.id, runner);
            if (noRunnerLeftFor(h))
                declineUpstream(
                        h,
                        DeclineCode.OTHER,
                        "the runner behind router " + settings.name() + " was lost before it started the job");
            else offer();
            return;
        }
        log.warn("job {}: runner {} behind the router lost while running it; reported lost upstream", h.id, runner);
        RunnerMessage.Failed failed = new RunnerMessage.Failed(
                h.id,
                h.lease,
                List.of(),
                "lost contact with runner " + runner + " behind router " + settings.name(),
                true);
        state.usage.ended(h.id, now);
        outbox.writeResult(failed, 1);
        h.state = State.FINISHING;
        link.sendUp(h, failed);
    }

    private boolean noRunnerLeftFor(HeldJob h) {
        for (Downstream r : state.runners.values()) {
            if (r.link != null && r.specs.contains(h.spec()) && !h.declinedBy.contains(r.name)) return false;
        }
        return true;
    }

    private void declineUpstream(HeldJob h, DeclineCode code, String reason) {
        state.jobs.remove(h.id);
        state.usage.forget(h.id);
        metrics.upstreamDecline(code);
        log.info("job {}: declined upstream: {}", h.id, reason);
        String bounded = reason.length() > 1024 ? reason.substring(0, 1024) : reason;
        link.sendUp(h, new RunnerMessage.Declined(h.id, h.lease, code.wireName(), bounded, h.lastDeclineFingerprint));
    }
}

package dev.baton.router;

import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.router.HeldJob.State;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runners behind the router, for which it is the server: their connections (a newer one
 * replaces an older one; silence past the heartbeat timeout closes one), their {@code ready} and
 * poll timeouts, and their words about jobs. A word about a job is accepted only from the runner
 * the router gave the job to, and goes upstream unchanged under the server's lease.
 */
final class DownstreamRunners {
    private static final Logger log = LoggerFactory.getLogger(DownstreamRunners.class);
    /** Close codes, as the server uses them (docs/protocol.md). */
    static final int CLOSE_REPLACED = 4001;

    static final int CLOSE_HEARTBEAT_TIMEOUT = 4002;

    private final RouterSettings settings;
    private final Outbox outbox;
    private final RouterMetrics metrics;
    private final Clock clock;
    private final RouterState state;
    private final UpstreamLink link;
    private final HeldJobs held;

    DownstreamRunners(
            RouterSettings settings,
            Outbox outbox,
            RouterMetrics metrics,
            Clock clock,
            RouterState state,
            UpstreamLink link,
            HeldJobs held) {
        this.settings = settings;
        this.outbox = outbox;
        this.metrics = metrics;
        this.clock = clock;
        this.state = state;
        this.link = link;
        this.held = held;
    }

    // ---- connections ------------------------------------------------------------------------------

    /** A runner behind the router connected (its key checked): a newer connection replaces an older one. */
    void connected(RunnerEntry entry, Link link) {
        Instant now = clock.instant();
        Downstream r = state.runners.computeIfAbsent(entry.name(), n -> new Downstream(n, entry.specs()));
        r.specs = entry.specs();
        if (r.link != null) r.link.close(CLOSE_REPLACED, "replaced by a newer connection of this runner");
        r.link = link;
        r.answers = new Answers(link);
        r.lastValid = now;
        r.waiting = false;
        metrics.runnerConnected();
        log.info("runner {} connected behind the router", entry.name());
        link.send(new ServerMessage.Welcome(
                entry.name(), entry.name(), List.copyOf(new TreeSet<>(entry.specs())), this.link.maxMessageBytes()));
        for (HeldJob h : state.jobs.values()) {
            if (!entry.name().equals(h.owner)) continue;
            h.ownerGoneSince = null;
            if (h.pendingCancel != null) {
                link.send(h.pendingCancel);
                h.pendingCancel = null;
            }
        }
    }

    void closed(String name, Link link) {
        Downstream r = state.runners.get(name);
        if (r == null || r.link != link) return;
        r.link = null;
        r.waiting = false;
        Instant now = clock.instant();
        for (HeldJob h : state.jobs.values())
            if (name.equals(h.owner) && h.state != State.FINISHING) h.ownerGoneSince = now;
        log.info("runner {} disconnected from the router", name);
        this.link.askUpstream();
    }

    void invalid(String name, Link link, String reason) {
        Downstream r = state.runners.get(name);
        if (r != null && r.link == link) r.answers.answer(new ServerMessage.Error("invalid_message", reason));
    }

    int connectedCount() {
        return (int) state.runners.values().stream().filter(r -> r.link != null).count();
    }

    // ---- what a runner says -------------------------------------------------------------------------

    void received(String name, Link link, RunnerMessage message) {
        Downstream r = state.runners.get(name);
        if (r == null || r.link != link) return;
        Instant now = clock.instant();
        if (message instanceof RunnerMessage.Ready ready) {
            ready(r, ready, now);
            return;
        }
        r.lastValid = now;
        if (message instanceof RunnerMessage.Heartbeat hb && hb.images() != null) {
            r.images = hb.images();
            this.link.askUpstream(); // a waiting runner's cache changed: the union advertised upstream may too
        }
        if (message instanceof RunnerMessage.Heartbeat hb && hb.job() == null) {
            r.answers.answer(new ServerMessage.Ack(null));
            return;
        }
        // The server stores noise per runner, and behind a router many machines are one runner to it:
        // one machine's figures would be shown as all of theirs, so they stay here (decision 0052).
        if (message instanceof RunnerMessage.Calibration) return;
        JobUuid job = RunnerMessages.job(message);
        LeaseId lease = RunnerMessages.lease(message);
        if (job == null || lease == null) {
            r.answers.answer(new ServerMessage.Error("invalid_message", "a message about a job needs job and lease"));
            return;
        }
        // Its images are its own, not the router's: upstream they are part of the router's ready.
        RunnerMessage upward = message instanceof RunnerMessage.Heartbeat hb
                ? new RunnerMessage.Heartbeat(hb.job(), hb.lease())
                : message;
        HeldJob h = state.jobs.get(job);
        if (h == null || !h.lease.equals(lease)) {
            unheld(r, upward, job, lease, h == null);
            return;
        }
        if (!name.equals(h.owner)) {
            // The router's own fence, which the server cannot keep, since every runner behind the router is
            // one runner to it. What the server says in its place: to a runner that had this attempt (it
            // declined it, or was lost before starting it) the lease is no longer current; to one that never
            // had it, the job is not leased to it, whatever lease it names.
            if (h.declinedBy.contains(name)) {
                r.answers.answer(new ServerMessage.Stale(
                        job, lease, "job is no longer yours (the router gave it to another runner)"));
            } else {
                r.answers.answer(
                        new ServerMessage.Error("not_your_job", "job " + job + " is not leased to this runner"));
            }
            return;
        }
        switch (upward) {
            case RunnerMessage.Preparing p -> {
                h.windowStart = now;
                h.lastKeepAlive = now;
                this.link.forward(r, h, p);
            }
            case RunnerMessage.Running run -> {
                if (h.state == State.OFFERED) {
                    h.state = State.RUNNING;
                    metrics.accepted(Duration.between(h.received, now), r.name);
                }
                // The server records the machine behind the router on the attempt, not the router's (issue 41).
                this.link.forward(r, h, r.machine == null ? run : run.withMachine(r.machine));
            }
            case RunnerMessage.Heartbeat hb -> this.link.forward(r, h, hb);
            // Also once its result is on its way: the server, not the router, says what a late line gets (stale).
            case RunnerMessage.Log l -> this.link.forward(r, h, l);
            // A fresh pull token (issue 41) is the server's to mint; its answer goes back to this runner.
            case RunnerMessage.PullToken p -> this.link.forward(r, h, p);
            case RunnerMessage.Declined d -> {
                // The router takes a decline of a job it offered; of a started or finished one the
                // server says what it says (cannot_decline, stale).
                if (h.state == State.OFFERED) held.declined(r, h, d);
                else this.link.forward(r, h, d);
            }
            case RunnerMessage.Terminal t -> {
                if (h.state != State.FINISHING) {
                    // On disk before it goes anywhere: from here the router owes the result upstream.
                    outbox.writeResult(t, 1);
                    state.usage.ended(h.id, now);
                    h.state = State.FINISHING;
                }
                // A resend goes up too: the server answers it as it answers any resend (ack once it has a result).
                this.link.forward(r, h, t);
                this.link.askUpstream();
            }
            case RunnerMessage.Ready ignored -> throw new IllegalStateException("handled above");
            case RunnerMessage.Calibration ignored -> throw new IllegalStateException("handled above");
        }
    }

    /**
     * A message about an attempt the router does not hold: one that ended or moved (the router
     * dropped it when the server said so, or an earlier attempt of a job it holds again), or one a
     * runner carries on with after the router restarted. The router does not know its outcome, so
     * the server answers it. A started job's message the server acknowledges makes the router take
     * the attempt on again ({@link HeldJobs#adopt}); a result is first written to the outbox, as
     * the router owes it upstream, unless the outbox holds a result of the attempt the router holds
     * now (it keeps one result per job).
     */
    private void unheld(Downstream r, RunnerMessage message, JobUuid job, LeaseId lease, boolean nothingHeld) {
        boolean started = message instanceof RunnerMessage.Running
                || message instanceof RunnerMessage.Heartbeat
                || message instanceof RunnerMessage.Log;
        if (message instanceof RunnerMessage.Terminal t && nothingHeld) outbox.writeResult(t, 1);
        this.link.forward(r, job, lease, message, started && nothingHeld);
    }

    private void ready(Downstream r, RunnerMessage.Ready ready, Instant now) {
        int slots = ready.slots() == null ? 1 : ready.slots();
        if (slots < 1 || slots > 1024) {
            r.answers.answer(
                    new ServerMessage.Error("invalid_slots", "slots must be between 1 and 1024, got " + slots));
            return;
        }
        int poll = ready.pollTimeout() == null ? 30 : ready.pollTimeout();
        if (poll < 1 || poll > 900) {
            r.answers.answer(new ServerMessage.Error(
                    "invalid_poll_timeout", "poll_timeout must be between 1 and 900, got " + poll));
            return;
        }
        if (ready.labels() != null) r.labels = ready.labels();
        r.machine = ready.machine(r.link.remoteAddress());
        if (ready.images() != null) r.images = ready.images();
        if (r.waiting) {
            link.askUpstream(); // a repeated ready is not activity, but may report other labels or images
            return;
        }
        r.lastValid = now;
        r.waiting = true;
        r.free = slots;
        r.pollDeadline = now.plusSeconds(poll);
        held.offer();
        link.askUpstream();
    }

    // ---- time ------------------------------------------------------------------------------------

    /** Poll timeouts ({@code no_job}) and read timeouts (the channel closed; its jobs' owner is gone) at {@code now}. */
    void tick(Instant now) {
        Duration hbTimeout = settings.heartbeatTimeout();
        for (Downstream r : state.runners.values()) {
            if (r.link != null && r.waiting && !now.isBefore(r.pollDeadline)) {
                r.waiting = false;
                r.link.send(new ServerMessage.NoJob());
            }
            if (r.link != null && !now.isBefore(r.lastValid.plus(hbTimeout))) {
                Link gone = r.link;
                r.link = null;
                r.waiting = false;
                gone.close(CLOSE_HEARTBEAT_TIMEOUT, "no valid message within the heartbeat timeout");
                log.warn("runner {} behind the router timed out", r.name);
                for (HeldJob h : state.jobs.values())
                    if (r.name.equals(h.owner) && h.state != State.FINISHING) h.ownerGoneSince = now.minus(hbTimeout);
            }
        }
    }
}

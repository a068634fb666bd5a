package dev.baton.router;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.router.HeldJob.State;
import dev.baton.router.policy.ProjectUsage;
import dev.baton.router.policy.SchedulingPolicy;
import dev.baton.runner.outbox.Outbox;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's state and rules (docs/router.md): one runner upstream, a server for the runners
 * downstream. Every method runs on the router's single event loop, so nothing here is locked.
 *
 * <p>Jobs pass through under the server's own lease: a runner behind the router gets the claimed
 * job as the server handed it out, and everything it says about the job goes upstream unchanged,
 * so the server's fencing holds end to end. The router adds its own fencing below the server's:
 * a message about a job is accepted only from the runner the router gave the job to.
 */
public final class RouterCore {
    private static final Logger log = LoggerFactory.getLogger(RouterCore.class);
    /** Close codes, as the server uses them (docs/protocol.md). */
    static final int CLOSE_REPLACED = 4001;
    static final int CLOSE_HEARTBEAT_TIMEOUT = 4002;

    private final RouterSettings settings;
    private final SchedulingPolicy policy;
    private final ProjectUsage usage = new ProjectUsage();
    private final Outbox outbox;
    private final RouterMetrics metrics;
    private final Clock clock;
    private final Upstream upstream;
    private UpstreamReplies replies;
    private final Map<String, Downstream> runners = new LinkedHashMap<>();
    private final Map<JobUuid, HeldJob> jobs = new LinkedHashMap<>();
    private boolean upstreamOpen;
    private String upstreamName;
    private List<String> upstreamSpecs = List.of();
    /** The router's outstanding {@code ready} upstream: what it asked and how many jobs may still come. */
    private Asked asked;
    private boolean quiet;

    /** Informational in {@code ready}: the router's own machine (its runners may differ). */
    private static final String ARCH = dev.baton.protocol.value.Architecture.ofHost().map(a -> a.wireName()).orElse(System.getProperty("os.arch"));

    /** What the outstanding ready asked: also the labels and images it advertised for the runners behind the router. */
    private record Asked(Set<String> specs, List<ProjectUuid> prefer, int slots, Map<String, String> labels, List<ImageDigest> images) {
        Asked less() {
            return slots <= 1 ? null : new Asked(specs, prefer, slots - 1, labels, images);
        }
    }

    public RouterCore(RouterSettings settings, SchedulingPolicy policy, Outbox outbox, RouterMetrics metrics, Clock clock, Upstream upstream) {
        this.settings = settings;
        this.policy = policy;
        this.outbox = outbox;
        this.metrics = metrics;
        this.clock = clock;
        this.upstream = upstream;
        this.replies = new UpstreamReplies(upstream);
    }

    // ---- upstream ------------------------------------------------------------------------------

    /** The channel to the server is open: resend unacknowledged results first, then keep jobs alive and ask for work. */
    public void upstreamOpened() {
        upstreamOpen = true;
        asked = null;
        replies = new UpstreamReplies(upstream);
        for (var entry : outbox.results().entrySet()) {
            RunnerMessage.Terminal t = entry.getKey();
            HeldJob h = jobs.get(t.job());
            if (h == null) {
                h = new HeldJob(t.job(), t.lease(), null, State.FINISHING, clock.instant());
                jobs.put(t.job(), h);
            }
            h.state = State.FINISHING;
            replies.send(t, UpstreamReplies.Sent.own(t.job(), t.lease(), true));
            metrics.resent();
        }
        Instant now = clock.instant();
        for (HeldJob h : jobs.values()) if (h.state == State.QUEUED || h.state == State.OFFERED) keepAlive(h, now);
        askUpstream();
    }

    public void upstreamClosed(String reason) {
        if (upstreamOpen) log.warn("upstream channel closed: {}", reason);
        upstreamOpen = false;
        asked = null;
        replies.dropped();
    }

    public void upstreamReceived(ServerMessage message) {
        switch (message) {
            case ServerMessage.Welcome w -> {
                upstreamName = w.runner();
                upstreamSpecs = w.specs();
                log.info("connected upstream as runner {}, serving {}", w.runner(), w.specs());
            }
            case ServerMessage.Job j -> received(j.job());
            case ServerMessage.NoJob n -> {
                asked = null;
                askUpstream();
            }
            case ServerMessage.Ack a -> {
                UpstreamReplies.Sent closed = replies.acked(a);
                if (closed != null && closed.terminal) resultTaken(closed);
            }
            case ServerMessage.Cancel c -> cancel(c, replies.relay(c.job(), c.lease(), c));
            case ServerMessage.Stale s -> stale(s, replies.relay(s.job(), s.lease(), s));
            case ServerMessage.Drain d -> {
                quiet = d.state() != DrainState.RUNNING;
                for (Downstream r : runners.values()) if (r.link != null) r.link.send(d);
                if (!quiet) askUpstream();
            }
            case ServerMessage.Update u -> log.info("the server offers runner version {}; a router does not self-update", u.version());
            case ServerMessage.Error e -> {
                if (!replies.relayError(e)) log.warn("upstream error {}: {}", e.code(), e.message());
            }
        }
    }

    private void received(ClaimedJob claimed) {
        Instant now = clock.instant();
        HeldJob h = new HeldJob(claimed.uuid(), claimed.lease(), claimed, State.QUEUED, now);
        if (asked != null) h.labels = asked.labels();
        if (asked != null) asked = asked.less();
        jobs.put(h.id, h);
        metrics.received();
        log.info("job {} attempt {} ({}) held for a runner", claimed.uuid(), claimed.attempt(), claimed.spec().slug());
        offer();
        askUpstream();
    }

    /** The server answered a result (whatever it said, it needs no resend): it leaves the outbox. */
    private void resultTaken(UpstreamReplies.Sent s) {
        HeldJob h = jobs.get(s.job);
        if (h != null && !h.lease.equals(s.lease)) return; // a newer attempt's result may be in the outbox now
        outbox.deleteResult(s.job);
        if (h != null && h.state == State.FINISHING) {
            jobs.remove(s.job);
            metrics.forwarded();
            log.info("job {}: result acknowledged upstream", s.job);
        }
    }

    private void cancel(ServerMessage.Cancel c, String relayedTo) {
        HeldJob h = jobs.get(c.job());
        if (h == null || !h.lease.equals(c.lease())) return;
        switch (h.state) {
            case QUEUED -> {
                // Nobody behind the router has it: the router itself acknowledges the cancel.
                RunnerMessage.Canceled done = new RunnerMessage.Canceled(h.id, h.lease, List.of());
                outbox.writeResult(done, 1);
                h.state = State.FINISHING;
                sendUp(h, done);
            }
            case OFFERED, RUNNING -> {
                if (h.owner.equals(relayedTo)) return;
                Downstream owner = runners.get(h.owner);
                if (owner != null && owner.link != null) owner.link.send(c);
                else h.pendingCancel = c;
            }
            case FINISHING -> { }
        }
    }

    private void stale(ServerMessage.Stale s, String relayedTo) {
        HeldJob h = jobs.get(s.job());
        if (h == null || !h.lease.equals(s.lease())) return;
        jobs.remove(s.job());
        if (h.state == State.FINISHING) outbox.deleteResult(h.id);
        if (h.state == State.RUNNING) usage.ended(h.id, clock.instant());
        else usage.forget(h.id);
        Downstream owner = h.owner == null ? null : runners.get(h.owner);
        if (owner != null && owner.link != null && h.state != State.FINISHING && !owner.name.equals(relayedTo)) owner.link.send(s);
        log.info("job {}: lease no longer current upstream ({})", s.job(), s.reason());
        offer();
        askUpstream();
    }

    /**
     * Asks the server for as many jobs as runners behind the router wait for and the jobs it holds
     * do not cover, for those runners' specs only, in the policy's project order. A changed ask
     * replaces the outstanding one (the server replaces the wait).
     */
    private void askUpstream() {
        if (!upstreamOpen || quiet) return;
        Set<String> specs = new TreeSet<>();
        int free = 0;
        List<Downstream> waiting = new ArrayList<>();
        for (Downstream r : runners.values()) {
            if (r.link == null || !r.waiting || r.free <= 0) continue;
            specs.addAll(r.specs);
            free += r.free;
            waiting.add(r);
        }
        long queued = jobs.values().stream().filter(h -> h.state == State.QUEUED).count();
        int want = (int) Math.max(0, free - queued);
        if (want == 0 || specs.isEmpty()) {
            if (asked != null && !asked.specs().isEmpty()) {
                // Nobody behind the router waits any more (a runner left, or held jobs cover them):
                // withdraw the wait, so that the server hands out nothing no runner can take.
                asked = new Asked(Set.of(), List.of(), 1, Map.of(), null);
                upstream.send(new RunnerMessage.Ready(settings.upstreamPollSeconds(), "linux", ARCH, "router", 1, List.of(), null));
            }
            return;
        }
        int slots = Math.min(1024, policy.slotsPerAsk(want));
        List<ProjectUuid> prefer = policy.preferProjects(usage, clock.instant());
        Map<String, String> labels = UpstreamView.labels(waiting);
        List<ImageDigest> images = UpstreamView.images(waiting);
        if (asked != null && asked.specs().equals(specs) && asked.prefer().equals(prefer) && asked.labels().equals(labels)
                && Objects.equals(asked.images(), images)) return;
        asked = new Asked(specs, prefer, slots, labels, images);
        // Labels always (an empty map clears the last report); images when some runner reports them.
        upstream.send(new RunnerMessage.Ready(settings.upstreamPollSeconds(), "linux", ARCH, "router",
                slots, List.copyOf(specs), prefer.isEmpty() ? null : prefer, null, labels, images));
    }

    private void keepAlive(HeldJob h, Instant now) {
        h.lastKeepAlive = now;
        String what = h.state == State.QUEUED ? "waiting for a runner behind router " + settings.name()
                : "offered to runner " + h.owner + " behind router " + settings.name();
        sendUp(h, new RunnerMessage.Preparing(h.id, h.lease, what));
    }

    /** The router's own word about a job (a keep-alive, a decline, a result of its own). */
    private void sendUp(HeldJob h, RunnerMessage message) {
        if (upstreamOpen) replies.send(message, UpstreamReplies.Sent.own(h.id, h.lease, message instanceof RunnerMessage.Terminal));
    }

    /**
     * A runner's message about a job, passed upstream: the server's answer is the runner's answer.
     * While the server is away the router answers it itself ({@code ack}: it keeps the job alive,
     * and a result is in its outbox).
     */
    private void forward(Downstream r, HeldJob h, RunnerMessage message) {
        Answers.Slot slot = r.answers.reserve();
        if (upstreamOpen) replies.send(message, new UpstreamReplies.Sent(h.id, h.lease, message instanceof RunnerMessage.Terminal, r, r.answers, slot));
        else r.answers.give(slot, new ServerMessage.Ack(h.id));
    }

    // ---- downstream ----------------------------------------------------------------------------

    /** A runner behind the router connected (its key checked): a newer connection replaces an older one. */
    public void runnerConnected(RunnerEntry entry, Link link) {
        Instant now = clock.instant();
        Downstream r = runners.computeIfAbsent(entry.name(), n -> new Downstream(n, entry.specs()));
        r.specs = entry.specs();
        if (r.link != null) r.link.close(CLOSE_REPLACED, "replaced by a newer connection of this runner");
        r.link = link;
        r.answers = new Answers(link);
        r.lastValid = now;
        r.waiting = false;
        metrics.runnerConnected();
        log.info("runner {} connected behind the router", entry.name());
        link.send(new ServerMessage.Welcome(entry.name(), entry.name(), List.copyOf(new TreeSet<>(entry.specs()))));
        for (HeldJob h : jobs.values()) {
            if (!entry.name().equals(h.owner)) continue;
            h.ownerGoneSince = null;
            if (h.pendingCancel != null) {
                link.send(h.pendingCancel);
                h.pendingCancel = null;
            }
        }
    }

    public void runnerClosed(String name, Link link) {
        Downstream r = runners.get(name);
        if (r == null || r.link != link) return;
        r.link = null;
        r.waiting = false;
        Instant now = clock.instant();
        for (HeldJob h : jobs.values()) if (name.equals(h.owner) && h.state != State.FINISHING) h.ownerGoneSince = now;
        log.info("runner {} disconnected from the router", name);
        askUpstream();
    }

    public void runnerInvalid(String name, Link link, String reason) {
        Downstream r = runners.get(name);
        if (r != null && r.link == link) r.answers.answer(new ServerMessage.Error("invalid_message", reason));
    }

    public void runnerReceived(String name, Link link, RunnerMessage message) {
        Downstream r = runners.get(name);
        if (r == null || r.link != link) return;
        Instant now = clock.instant();
        if (message instanceof RunnerMessage.Ready ready) {
            ready(r, ready, now);
            return;
        }
        r.lastValid = now;
        if (message instanceof RunnerMessage.Heartbeat hb && hb.images() != null) {
            r.images = hb.images();
            askUpstream(); // a waiting runner's cache changed: the union advertised upstream may too
        }
        if (message instanceof RunnerMessage.Heartbeat hb && hb.job() == null) {
            r.answers.answer(new ServerMessage.Ack(null));
            return;
        }
        JobUuid job = RunnerMessages.job(message);
        LeaseId lease = RunnerMessages.lease(message);
        if (job == null || lease == null) {
            r.answers.answer(new ServerMessage.Error("invalid_message", "a message about a job needs job and lease"));
            return;
        }
        HeldJob h = jobs.get(job);
        if (h == null) {
            h = adopt(r, message, job, lease, now);
            if (h == null) return;
        }
        if (!h.lease.equals(lease)) {
            r.answers.answer(new ServerMessage.Stale(job, lease, "lease is not valid for this job"));
            return;
        }
        if (!name.equals(h.owner)) {
            // What a server says to a runner whose attempt went to another: its lease is not current for it.
            r.answers.answer(new ServerMessage.Stale(job, lease, "job is no longer yours (the router gave it to another runner)"));
            return;
        }
        switch (message) {
            case RunnerMessage.Preparing p -> {
                h.windowStart = now;
                h.lastKeepAlive = now;
                forward(r, h, p);
            }
            case RunnerMessage.Running run -> {
                if (h.state == State.OFFERED) {
                    h.state = State.RUNNING;
                    metrics.accepted(Duration.between(h.received, now), r.name);
                }
                forward(r, h, run);
            }
            // Its images are its own, not the router's: upstream they are part of the router's ready.
            case RunnerMessage.Heartbeat hb -> forward(r, h, new RunnerMessage.Heartbeat(hb.job(), hb.lease()));
            case RunnerMessage.Log l -> {
                if (h.state != State.FINISHING) forward(r, h, l);
                else r.answers.answer(new ServerMessage.Ack(job));
            }
            case RunnerMessage.Declined d -> declined(r, h, d, now);
            case RunnerMessage.Terminal t -> {
                if (h.state != State.FINISHING) {
                    // On disk before it goes anywhere: from here the router owes the result upstream.
                    outbox.writeResult(t, 1);
                    usage.ended(h.id, now);
                    h.state = State.FINISHING;
                    forward(r, h, t);
                } else {
                    r.answers.answer(new ServerMessage.Ack(job)); // a resend: the first one is on its way
                }
                askUpstream();
            }
            case RunnerMessage.Ready ignored -> throw new IllegalStateException("handled above");
        }
    }

    /**
     * A message about a job the router does not hold: after a restart of the router, a runner
     * carrying on with a job it had started. The router takes it on (the server still fences it
     * by the lease) instead of making the runner stop good work.
     */
    private HeldJob adopt(Downstream r, RunnerMessage message, JobUuid job, LeaseId lease, Instant now) {
        boolean started = message instanceof RunnerMessage.Running || message instanceof RunnerMessage.Heartbeat
                || message instanceof RunnerMessage.Log || message instanceof RunnerMessage.Terminal;
        if (!started) {
            r.answers.answer(new ServerMessage.Stale(job, lease, "no such job at this router"));
            return null;
        }
        HeldJob h = new HeldJob(job, lease, null, State.RUNNING, now);
        h.owner = r.name;
        jobs.put(job, h);
        log.info("job {}: taken on from runner {} (held before a router restart)", job, r.name);
        return h;
    }

    private void ready(Downstream r, RunnerMessage.Ready ready, Instant now) {
        int slots = ready.slots() == null ? 1 : ready.slots();
        if (slots < 1 || slots > 1024) {
            r.answers.answer(new ServerMessage.Error("invalid_slots", "slots must be between 1 and 1024, got " + slots));
            return;
        }
        int poll = ready.pollTimeout() == null ? 30 : ready.pollTimeout();
        if (poll < 1 || poll > 900) {
            r.answers.answer(new ServerMessage.Error("invalid_poll_timeout", "poll_timeout must be between 1 and 900, got " + poll));
            return;
        }
        if (ready.labels() != null) r.labels = ready.labels();
        if (ready.images() != null) r.images = ready.images();
        if (r.waiting) {
            askUpstream(); // a repeated ready is not activity, but may report other labels or images
            return;
        }
        r.lastValid = now;
        r.waiting = true;
        r.free = slots;
        r.pollDeadline = now.plusSeconds(poll);
        offer();
        askUpstream();
    }

    private void declined(Downstream r, HeldJob h, RunnerMessage.Declined d, Instant now) {
        if (h.state != State.OFFERED) {
            // Started (or finished): as the server answers a decline of a running job.
            r.answers.answer(new ServerMessage.Error("cannot_decline", "job " + h.id + " is already running; report failed instead"));
            return;
        }
        r.answers.answer(new ServerMessage.Ack(h.id));
        metrics.downstreamDecline(d.declineCode());
        h.declinedBy.add(r.name);
        usage.forget(h.id);
        h.lastDeclineCode = d.declineCode();
        h.lastDeclineReason = r.name + ": " + (d.reason() == null ? "declined" : d.reason());
        h.lastDeclineFingerprint = d.fingerprint();
        h.state = State.QUEUED;
        h.owner = null;
        if (noRunnerLeftFor(h)) {
            declineUpstream(h, h.lastDeclineCode, "every runner behind router " + settings.name() + " for this spec declined it ("
                    + h.lastDeclineReason + ")");
        } else {
            offer();
        }
        askUpstream();
    }

    private boolean noRunnerLeftFor(HeldJob h) {
        for (Downstream r : runners.values()) {
            if (r.link != null && r.specs.contains(h.spec()) && !h.declinedBy.contains(r.name)) return false;
        }
        return true;
    }

    private void declineUpstream(HeldJob h, DeclineCode code, String reason) {
        jobs.remove(h.id);
        usage.forget(h.id);
        metrics.upstreamDecline(code);
        log.info("job {}: declined upstream: {}", h.id, reason);
        String bounded = reason.length() > 1024 ? reason.substring(0, 1024) : reason;
        sendUp(h, new RunnerMessage.Declined(h.id, h.lease, code.wireName(), bounded, h.lastDeclineFingerprint));
    }

    /** Hands held jobs to waiting runners, in the policy's order (arrival order among equals). */
    private void offer() {
        Instant now = clock.instant();
        List<HeldJob> queued = new ArrayList<>();
        for (HeldJob h : jobs.values()) if (h.state == State.QUEUED) queued.add(h);
        if (queued.isEmpty()) return;
        Comparator<ProjectUuid> order = policy.order(usage, now);
        queued.sort((a, b) -> a.project() == null || b.project() == null ? 0 : order.compare(a.project(), b.project()));
        for (HeldJob h : queued) {
            for (Downstream r : UpstreamView.warmFirst(runners.values(), h)) {
                if (!r.canTake(h)) continue;
                h.state = State.OFFERED;
                h.owner = r.name;
                h.windowStart = now;
                usage.started(h.id, h.project(), now);
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

    /**
     * The router's own liveness upstream, once a second by the driver's timer: only valid messages
     * keep the server's read timer alive (not a repeated ready), and an idle router has nothing else
     * to say, as an idle runner has not.
     */
    public void heartbeat() {
        if (upstreamOpen) replies.heartbeat();
    }

    /** Poll timeouts, read timeouts, lost runners, acceptance windows and keep-alives, on the injected clock. */
    public void tick() {
        Instant now = clock.instant();

        Duration hbTimeout = settings.heartbeatTimeout();
        for (Downstream r : runners.values()) {
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
                for (HeldJob h : jobs.values()) if (r.name.equals(h.owner) && h.state != State.FINISHING) h.ownerGoneSince = now.minus(hbTimeout);
            }
        }
        for (HeldJob h : List.copyOf(jobs.values())) {
            if (h.ownerGoneSince != null && !now.isBefore(h.ownerGoneSince.plus(hbTimeout)) && h.state != State.FINISHING) {
                lost(h, now);
                continue;
            }
            if ((h.state == State.QUEUED || h.state == State.OFFERED) && h.claimed != null
                    && !now.isBefore(h.windowStart.plus(settings.acceptanceWindow()))) {
                Downstream owner = h.owner == null ? null : runners.get(h.owner);
                if (owner != null && owner.link != null) owner.link.send(new ServerMessage.Stale(h.id, h.lease, "acceptance_timeout"));
                declineUpstream(h, h.lastDeclineReason == null ? DeclineCode.OTHER : h.lastDeclineCode,
                        "no runner behind router " + settings.name() + " accepted it within " + settings.acceptanceWindow().toSeconds() + " s"
                                + (h.lastDeclineReason == null ? "" : " (last decline: " + h.lastDeclineReason + ")"));
                continue;
            }
            if ((h.state == State.QUEUED || h.state == State.OFFERED) && !now.isBefore(h.lastKeepAlive.plus(settings.keepAlive()))) {
                keepAlive(h, now);
            }
        }
        offer();
        askUpstream();
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
            usage.forget(h.id);
            h.declinedBy.add(runner);
            h.lastDeclineReason = runner + ": lost before it started the job";
            h.state = State.QUEUED;
            h.owner = null;
            h.pendingCancel = null;
            log.warn("job {}: runner {} lost before starting it; offered again", h.id, runner);
            if (noRunnerLeftFor(h)) declineUpstream(h, DeclineCode.OTHER, "the runner behind router " + settings.name() + " was lost before it started the job");
            else offer();
            return;
        }
        log.warn("job {}: runner {} behind the router lost while running it; reported lost upstream", h.id, runner);
        RunnerMessage.Failed failed = new RunnerMessage.Failed(h.id, h.lease, List.of(),
                "lost contact with runner " + runner + " behind router " + settings.name(), true);
        usage.ended(h.id, now);
        outbox.writeResult(failed, 1);
        h.state = State.FINISHING;
        sendUp(h, failed);
    }

    // ---- status --------------------------------------------------------------------------------

    public RouterStatus status() {
        return RouterStatus.of(runners.values(), jobs.values(), usage, clock.instant(), upstreamOpen,
                Objects.requireNonNullElse(upstreamName, settings.name()), upstreamSpecs, policy.describe());
    }

    public int heldJobs() {
        return jobs.size();
    }

    public int connectedRunners() {
        return (int) runners.values().stream().filter(r -> r.link != null).count();
    }

    public boolean upstreamConnected() {
        return upstreamOpen;
    }
}

package dev.baton.router;

import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.router.HeldJob.State;
import dev.baton.router.policy.SchedulingPolicy;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's one channel to the server, where it is a runner: what it says upstream (its
 * {@code ready} on behalf of the runners that wait, keep-alives, its own and its runners' words
 * about jobs, each followed by the bare heartbeat {@link UpstreamReplies} pairs answers with),
 * and what it resends when the channel opens again (the results in its outbox).
 */
final class UpstreamLink {
    private static final Logger log = LoggerFactory.getLogger(UpstreamLink.class);

    /**
     * The router's own version in {@code ready} (the distribution's, as a runner's; "router" when
     * run from classes). Its {@code ready} sends no {@code arch}: it stands for runners of any
     * architecture, so the server's architecture check (issue 41) is theirs, not the router's.
     */
    private static final String VERSION =
            Objects.requireNonNullElse(UpstreamLink.class.getPackage().getImplementationVersion(), "router");

    private static final String HOST = hostName();
    private static final Long PID = ProcessHandle.current().pid();
    private static final Instant STARTED =
            ProcessHandle.current().info().startInstant().orElse(null);

    /** What the outstanding ready asked: also the labels and images it advertised for the runners behind the router. */
    private record Asked(
            Set<String> specs,
            List<ProjectUuid> prefer,
            int slots,
            Map<String, String> labels,
            List<ImageDigest> images) {
        Asked less() {
            return slots <= 1 ? null : new Asked(specs, prefer, slots - 1, labels, images);
        }
    }

    private final RouterSettings settings;
    private final SchedulingPolicy policy;
    private final Outbox outbox;
    private final RouterMetrics metrics;
    private final Clock clock;
    private final Upstream upstream;
    private final RouterState state;
    private UpstreamReplies replies;
    private boolean open;
    private String name;
    private List<String> specs = List.of();
    /** The message limit the server's welcome named (null: not said, or not yet connected). */
    private Long serverMaxMessageBytes;
    /** The router's outstanding {@code ready} upstream: what it asked and how many jobs may still come. */
    private Asked asked;

    private boolean quiet;

    UpstreamLink(
            RouterSettings settings,
            SchedulingPolicy policy,
            Outbox outbox,
            RouterMetrics metrics,
            Clock clock,
            Upstream upstream,
            RouterState state) {
        this.settings = settings;
        this.policy = policy;
        this.outbox = outbox;
        this.metrics = metrics;
        this.clock = clock;
        this.upstream = upstream;
        this.state = state;
        this.replies = new UpstreamReplies(upstream);
    }

    /** The channel to the server is open: resend unacknowledged results first, then keep jobs alive and ask for work. */
    void opened() {
        open = true;
        asked = null;
        replies = new UpstreamReplies(upstream);
        for (var entry : outbox.results().entrySet()) {
            RunnerMessage.Terminal t = entry.getKey();
            HeldJob h = state.jobs.get(t.job());
            if (h == null) {
                h = new HeldJob(t.job(), t.lease(), null, State.FINISHING, clock.instant());
                state.jobs.put(t.job(), h);
            }
            h.state = State.FINISHING;
            replies.send(t, UpstreamReplies.Sent.own(t.job(), t.lease(), true));
            metrics.resent();
        }
        Instant now = clock.instant();
        for (HeldJob h : state.jobs.values())
            if (h.state == State.QUEUED || h.state == State.OFFERED) keepAlive(h, now);
        askUpstream();
    }

    void closed(String reason) {
        if (open) log.warn("upstream channel closed: {}", reason);
        open = false;
        asked = null;
        replies.dropped();
    }

    boolean isOpen() {
        return open;
    }

    /** The runner name the server knows the router by (null until welcomed). */
    String name() {
        return name;
    }

    List<String> specs() {
        return specs;
    }

    /**
     * The largest message a runner behind the router may send: the router's own bound, or the
     * server's when its welcome named a smaller one, so a result the runner cuts to fit passes both.
     */
    long maxMessageBytes() {
        Long server = serverMaxMessageBytes;
        return server == null ? settings.maxMessageBytes() : Math.min(server, settings.maxMessageBytes());
    }

    // ---- what the server says ---------------------------------------------------------------------

    void welcomed(ServerMessage.Welcome w) {
        name = w.runner();
        specs = w.specs();
        serverMaxMessageBytes = w.maxMessageBytes();
        log.info("connected upstream as runner {}, serving {}", w.runner(), w.specs());
    }

    /** The outstanding ready ended without a job: ask again (for whoever still waits). */
    void noJob() {
        asked = null;
        askUpstream();
    }

    /**
     * A job came for the outstanding ready: one fewer may come. Returns the labels that ready
     * advertised (only a runner with all of them may take the job), null when there was none.
     */
    Map<String, String> jobArrived() {
        Map<String, String> labels = asked != null ? asked.labels() : null;
        if (asked != null) asked = asked.less();
        return labels;
    }

    /** The message an ack closes, if any ({@link UpstreamReplies#acked}). */
    UpstreamReplies.Sent acked(ServerMessage.Ack ack) {
        return replies.acked(ack);
    }

    /** A cancel or stale passed to the runner whose message it answers; that runner's name, or null ({@link UpstreamReplies#relay}). */
    String relay(JobUuid job, LeaseId lease, ServerMessage message) {
        return replies.relay(job, lease, message);
    }

    boolean relayError(ServerMessage.Error error) {
        return replies.relayError(error);
    }

    /** The server drains (or resumes) the router: its runners are told the same, and the router asks for nothing while it drains. */
    void drain(ServerMessage.Drain d) {
        quiet = d.state() != DrainState.RUNNING;
        for (Downstream r : state.runners.values()) if (r.link != null) r.link.send(d);
        if (!quiet) askUpstream();
    }

    // ---- what the router says ---------------------------------------------------------------------

    /**
     * Asks the server for as many jobs as runners behind the router wait for and the jobs it holds
     * do not cover, for those runners' specs only, in the policy's project order. A changed ask
     * replaces the outstanding one (the server replaces the wait).
     */
    void askUpstream() {
        if (!open || quiet) return;
        Set<String> specs = new TreeSet<>();
        int free = 0;
        List<Downstream> waiting = new ArrayList<>();
        for (Downstream r : state.runners.values()) {
            if (r.link == null || !r.waiting || r.free <= 0) continue;
            specs.addAll(r.specs);
            free += r.free;
            waiting.add(r);
        }
        long queued = state.jobs.values().stream()
                .filter(h -> h.state == State.QUEUED)
                .count();
        int want = (int) Math.max(0, free - queued);
        if (want == 0 || specs.isEmpty()) {
            if (asked != null && !asked.specs().isEmpty()) {
                // Nobody behind the router waits any more (a runner left, or held jobs cover them):
                // withdraw the wait, so that the server hands out nothing no runner can take.
                asked = new Asked(Set.of(), List.of(), 1, Map.of(), null);
                upstream.send(ready(1, List.of(), null, null, null));
            }
            return;
        }
        int slots = Math.min(1024, policy.slotsPerAsk(want));
        List<ProjectUuid> prefer = policy.preferProjects(state.usage, clock.instant());
        Map<String, String> labels = UpstreamView.labels(waiting);
        List<ImageDigest> images = UpstreamView.images(waiting);
        if (asked != null
                && asked.specs().equals(specs)
                && asked.prefer().equals(prefer)
                && asked.labels().equals(labels)
                && Objects.equals(asked.images(), images)) return;
        asked = new Asked(specs, prefer, slots, labels, images);
        // Labels always (an empty map clears the last report); images when some runner reports them.
        upstream.send(ready(slots, List.copyOf(specs), prefer.isEmpty() ? null : prefer, labels, images));
    }

    private RunnerMessage.Ready ready(
            int slots,
            List<String> specs,
            List<ProjectUuid> prefer,
            Map<String, String> labels,
            List<ImageDigest> images) {
        return new RunnerMessage.Ready(
                settings.upstreamPollSeconds(),
                "linux",
                null,
                VERSION,
                slots,
                specs,
                prefer,
                null,
                labels,
                images,
                HOST,
                PID,
                STARTED);
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** A held job no runner has started yet: the router says {@code preparing} itself, so the server keeps it alive. */
    void keepAlive(HeldJob h, Instant now) {
        h.lastKeepAlive = now;
        String what = h.state == State.QUEUED
                ? "waiting for a runner behind router " + settings.name()
                : "offered to runner " + h.owner + " behind router " + settings.name();
        sendUp(h, new RunnerMessage.Preparing(h.id, h.lease, what));
    }

    /** The router's own word about a job (a keep-alive, a decline, a result of its own). */
    void sendUp(HeldJob h, RunnerMessage message) {
        if (open)
            replies.send(message, UpstreamReplies.Sent.own(h.id, h.lease, message instanceof RunnerMessage.Terminal));
    }

    /**
     * A runner's message about a job, passed upstream: the server's answer is the runner's answer.
     * While the server is away the router answers it itself ({@code ack}: it keeps the job alive,
     * and a result is in its outbox).
     */
    void forward(Downstream r, HeldJob h, RunnerMessage message) {
        forward(r, h.id, h.lease, message, false);
    }

    /**
     * A runner's message about {@code job} under {@code lease}, passed upstream, with the server's
     * answer as the runner's answer; {@code adoptIfAcknowledged}: the router takes the attempt on
     * when the server acknowledges it (see {@link UpstreamReplies.Sent#adoptIfAcknowledged}).
     */
    void forward(Downstream r, JobUuid job, LeaseId lease, RunnerMessage message, boolean adoptIfAcknowledged) {
        Answers.Slot slot = r.answers.reserve();
        if (open) {
            replies.send(
                    message,
                    new UpstreamReplies.Sent(
                            job,
                            lease,
                            message instanceof RunnerMessage.Terminal,
                            r,
                            r.answers,
                            slot,
                            adoptIfAcknowledged));
        } else {
            r.answers.give(slot, new ServerMessage.Ack(job));
        }
    }

    /**
     * The router's own liveness upstream, once a second by the driver's timer: only valid messages
     * keep the server's read timer alive (not a repeated ready), and an idle router has nothing else
     * to say, as an idle runner has not.
     */
    void heartbeat() {
        if (open) replies.heartbeat();
    }
}

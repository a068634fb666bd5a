package dev.baton.router;

import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.router.policy.SchedulingPolicy;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's state and rules (docs/router.md): one runner upstream, a server for the runners
 * downstream. Every method runs on the router's single event loop, so nothing here is locked.
 * This class is the door the driver calls; the rules live in its parts:
 *
 * <ul>
 *   <li>{@link UpstreamLink}: the channel to the server — the router's {@code ready}, its
 *       keep-alives, runners' words passed up, results resent from the outbox when it reopens;
 *   <li>{@link DownstreamRunners}: the runners behind the router — connections, {@code ready},
 *       poll and read timeouts, their words about jobs;
 *   <li>{@link HeldJobs}: the jobs held under the server's leases — offered, offered again,
 *       declined or reported lost upstream, canceled or fenced by the server;
 *   <li>{@link RouterState}: what they share.
 * </ul>
 *
 * <p>Jobs pass through under the server's own lease: a runner behind the router gets the claimed
 * job as the server handed it out, and everything it says about the job goes upstream unchanged,
 * so the server's fencing holds end to end. The router adds its own fencing below the server's:
 * a message about a job is accepted only from the runner the router gave the job to.
 */
public final class RouterCore {
    private static final Logger log = LoggerFactory.getLogger(RouterCore.class);

    private final RouterSettings settings;
    private final SchedulingPolicy policy;
    private final Clock clock;
    private final RouterState state = new RouterState();
    private final UpstreamLink upstream;
    private final HeldJobs held;
    private final DownstreamRunners runners;

    public RouterCore(
            RouterSettings settings,
            SchedulingPolicy policy,
            Outbox outbox,
            RouterMetrics metrics,
            Clock clock,
            Upstream upstream) {
        this.settings = settings;
        this.policy = policy;
        this.clock = clock;
        this.upstream = new UpstreamLink(settings, policy, outbox, metrics, clock, upstream, state);
        this.held = new HeldJobs(settings, policy, outbox, metrics, clock, state, this.upstream);
        this.runners = new DownstreamRunners(settings, outbox, metrics, clock, state, this.upstream, held);
    }

    // ---- upstream ------------------------------------------------------------------------------

    /** The channel to the server is open: resend unacknowledged results first, then keep jobs alive and ask for work. */
    public void upstreamOpened() {
        upstream.opened();
    }

    public void upstreamClosed(String reason) {
        upstream.closed(reason);
    }

    public void upstreamReceived(ServerMessage message) {
        switch (message) {
            case ServerMessage.Welcome w -> upstream.welcomed(w);
            case ServerMessage.Job j -> held.received(j.job());
            case ServerMessage.NoJob n -> upstream.noJob();
            case ServerMessage.Ack a -> {
                UpstreamReplies.Sent closed = upstream.acked(a);
                if (closed != null && closed.terminal) held.resultTaken(closed);
                if (closed != null && closed.adoptIfAcknowledged && closed.acknowledged()) held.adopt(closed);
            }
            case ServerMessage.Cancel c -> held.cancel(c, upstream.relay(c.job(), c.lease(), c));
            case ServerMessage.Stale s -> held.stale(s, upstream.relay(s.job(), s.lease(), s));
            case ServerMessage.Drain d -> upstream.drain(d);
            case ServerMessage.PullToken p -> upstream.relay(p.job(), p.lease(), p);
            case ServerMessage.Update u ->
                log.info("the server offers runner version {}; a router does not self-update", u.version());
            // Behind a router many machines are one runner to the server: none of them is measured for it.
            case ServerMessage.Calibrate c -> log.info("the server asks for a noise calibration; a router has none");
            case ServerMessage.Error e -> {
                if (!upstream.relayError(e)) log.warn("upstream error {}: {}", e.code(), e.message());
            }
        }
    }

    // ---- downstream ----------------------------------------------------------------------------

    /** A runner behind the router connected (its key checked): a newer connection replaces an older one. */
    public void runnerConnected(RunnerEntry entry, Link link) {
        runners.connected(entry, link);
    }

    public void runnerClosed(String name, Link link) {
        runners.closed(name, link);
    }

    public void runnerInvalid(String name, Link link, String reason) {
        runners.invalid(name, link, reason);
    }

    public void runnerReceived(String name, Link link, RunnerMessage message) {
        runners.received(name, link, message);
    }

    // ---- time ------------------------------------------------------------------------------------

    /**
     * The router's own liveness upstream, once a second by the driver's timer: only valid messages
     * keep the server's read timer alive (not a repeated ready), and an idle router has nothing else
     * to say, as an idle runner has not.
     */
    public void heartbeat() {
        upstream.heartbeat();
    }

    /** Poll timeouts, read timeouts, lost runners, acceptance windows and keep-alives, on the injected clock. */
    public void tick() {
        Instant now = clock.instant();
        runners.tick(now);
        held.tick(now);
        held.offer();
        upstream.askUpstream();
    }

    // ---- status --------------------------------------------------------------------------------

    public RouterStatus status() {
        return RouterStatus.of(
                state.runners.values(),
                state.jobs.values(),
                state.usage,
                clock.instant(),
                upstream.isOpen(),
                Objects.requireNonNullElse(upstream.name(), settings.name()),
                upstream.specs(),
                policy.describe());
    }

    public int heldJobs() {
        return state.jobs.size();
    }

    public int connectedRunners() {
        return runners.connectedCount();
    }

    public boolean upstreamConnected() {
        return upstream.isOpen();
    }
}

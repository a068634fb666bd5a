package dev.baton.dispatch;

import dev.baton.store.Job;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where runners and this node are, as the store records it: a runner's channel opening, closing
 * or falling silent on this node; this node starting (recovery after a restart), rejoining after
 * another node found it dead, stopping, or halting. The store holds every consequence as a
 * deadline ({@link DeadlineSweep} acts on it), so a node that dies loses nothing; what this node
 * remembers of its attempts is checked with the store on their next message.
 */
public final class Presence {
    private static final Logger LOG = LoggerFactory.getLogger(Presence.class);

    private final LifecycleContext ctx;

    Presence(LifecycleContext ctx) {
        this.ctx = ctx;
    }

    // ---- a runner's channel -----------------------------------------------------------------------

    /**
     * The runner's channel opened on this node: the store records its node (so that if this node
     * dies, the others know whose jobs to take over), and what this node remembers of its attempts
     * is checked with the store on their next message (another node may have ended them meanwhile).
     */
    public void connectionOpened(RunnerSession session) {
        ctx.store.nodes().attachRunner(session.runnerId(), ctx.settings.nodeId());
        for (ActiveJob a : ctx.active.ofRunner(session.runnerId())) a.reattach = true;
    }

    /**
     * The runner's current channel closed. Its attempts get one heartbeat timeout to come back on
     * a new connection, on this node or another (seed 000's disconnect recovery): the store holds
     * that deadline, so it holds even if this node dies.
     */
    public void connectionClosed(RunnerSession session) {
        if (ctx.shuttingDown()) return;
        ctx.changes.runners();
        Instant lostAt = ctx.clock.instant().plus(ctx.settings.heartbeatTimeout());
        try {
            ctx.store.nodes().detachRunner(session.runnerId(), ctx.settings.nodeId(), lostAt);
        } catch (RuntimeException e) {
            LOG.warn(
                    "could not record that runner {} disconnected; the fallback sweep retries: {}",
                    session.runner().slug(),
                    e.toString());
        }
        for (ActiveJob a : ctx.active.ofRunner(session.runnerId())) {
            a.reattach = true;
            ctx.wakeAt(DeadlineKeys.lost(a.job), lostAt);
        }
    }

    /** The channel has been silent for the heartbeat timeout: its attempts are lost now. */
    public void readTimedOut(RunnerSession session) {
        LOG.warn(
                "runner {} silent for {}: closing its channel",
                session.runner().slug(),
                ctx.settings.heartbeatTimeout());
        Instant now = ctx.clock.instant();
        ctx.store.nodes().markRunnerLost(session.runnerId(), now);
        ctx.store.nodes().detachRunner(session.runnerId(), ctx.settings.nodeId(), now);
        ctx.sweepQuietly();
    }

    /**
     * Runners the store records on this node without a channel here: their disconnect was not
     * written (the database was unreachable when the channel closed). They are detached now, so
     * that their jobs get the usual heartbeat timeout instead of waiting on a node that no longer
     * holds them. Part of the fallback sweep; returns how many were detached.
     */
    public int detachStrayRunners() {
        if (ctx.shuttingDown()) return 0;
        int detached = 0;
        for (long runnerId : ctx.store.nodes().runnersOn(ctx.settings.nodeId())) {
            if (ctx.sessions.of(runnerId).isPresent()) continue;
            ctx.store
                    .nodes()
                    .detachRunner(
                            runnerId, ctx.settings.nodeId(), ctx.clock.instant().plus(ctx.settings.heartbeatTimeout()));
            detached++;
        }
        return detached;
    }

    // ---- this node --------------------------------------------------------------------------------

    /**
     * At start: the node registers (taking over from a previous run of the same id that did not
     * stop cleanly), and completed jobs whose output was stored but not parsed are processed
     * again. Nothing else: every deadline is in the store, and the sweep acts on it.
     */
    public void recover() {
        Instant now = ctx.clock.instant();
        ctx.store
                .nodes()
                .registerNode(
                        ctx.settings.nodeId(),
                        now,
                        now.plus(ctx.settings.heartbeatTimeout()),
                        now.minus(ctx.settings.nodeTimeout()));
        for (Job job : ctx.store.liveness().completedUnprocessedJobs()) ctx.results.process(job);
    }

    /**
     * This node was found dead by another while it was paused (it missed its heartbeats): its
     * runners were detached. It registers again, re-attaches the runners still connected here,
     * and checks its attempts with the store on their next message.
     */
    public void rejoin() {
        Instant now = ctx.clock.instant();
        LOG.warn(
                "node {} was found dead by another node while it was paused: registering again", ctx.settings.nodeId());
        ctx.store
                .nodes()
                .registerNode(
                        ctx.settings.nodeId(),
                        now,
                        now.plus(ctx.settings.heartbeatTimeout()),
                        now.minus(ctx.settings.nodeTimeout()));
        for (RunnerSession s : ctx.sessions.all()) ctx.store.nodes().attachRunner(s.runnerId(), ctx.settings.nodeId());
        for (ActiveJob a : ctx.active.all()) a.reattach = true;
    }

    /** A crash in a test: this node stops acting and writes nothing more. */
    public void halt() {
        ctx.stopActing();
    }

    /** Graceful server shutdown: in-flight jobs stay as they are for the runners to reconnect to (here or on another node). */
    public void shutdown() {
        ctx.stopActing();
        Instant now = ctx.clock.instant();
        try {
            ctx.store.nodes().stopNode(ctx.settings.nodeId(), now, now.plus(ctx.settings.heartbeatTimeout()));
        } catch (RuntimeException e) {
            LOG.warn(
                    "could not mark node {} stopped; the other nodes will find it dead: {}",
                    ctx.settings.nodeId(),
                    e.toString());
        }
    }
}

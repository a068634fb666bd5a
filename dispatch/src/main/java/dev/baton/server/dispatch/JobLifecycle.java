package dev.baton.server.dispatch;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.server.cluster.ClusterBus;
import dev.baton.server.events.Changes;
import dev.baton.server.logs.LiveLogs;
import dev.baton.server.metrics.BatonMetrics;
import dev.baton.server.output.ResultProcessor;
import dev.baton.server.store.Job;
import dev.baton.server.store.Store;
import java.time.Clock;

/**
 * The life of an attempt after its claim: acceptance ({@code preparing}, {@code running},
 * {@code declined}), liveness, the runner's final word, and every timeout (acceptance window,
 * read timeout, disconnect, hard timeout, cancel deadline), plus recovery after a restart. This
 * class is the door the channel, the lease routes and the assembly call; each transition lives
 * in the part that owns it:
 *
 * <ul>
 *   <li>{@link RunningMessages}: the runner's words during an attempt ({@code preparing}, {@code running},
 *       {@code heartbeat}, {@code log}, {@code declined});
 *   <li>{@link FinalMessages}: its final word ({@code completed}, {@code failed}, {@code canceled}),
 *       storing output through {@link FinalOutput};
 *   <li>{@link Cancels}: a user's cancel, a hard timeout seen at a heartbeat, a cancel from another node;
 *   <li>{@link DeadlineSweep}: every deadline in the store and the sweep that acts on them, the
 *       queue timeout, and an attempt ended by another node's sweep;
 *   <li>{@link Presence}: runners' channels opening, closing and falling silent, and this node
 *       recovering at start, rejoining after being found dead, stopping;
 *   <li>{@link AttemptResolver}: which attempt a runner's word speaks for (the lease check all
 *       words go through), and {@link LifecycleContext}: what every part shares.
 * </ul>
 *
 * <p>Rules (brief §1): every job-scoped message is checked against the current lease, and a
 * wrong one changes nothing and is answered {@code stale}; a job that never started goes back to
 * the queue when its runner declines, disappears or misses the window; a started job that loses
 * its runner fails (or is canceled past its hard timeout); a {@code completed} under the current
 * lease overrides a heartbeat-timeout failure. State changes are compare-and-set in the store;
 * memory only caches the current attempts for cheap heartbeats.
 *
 * <p>Several nodes (docs/decisions/0006-cluster.md): every deadline that changes a job is a
 * column written with the transition that starts it, and {@link #sweep} acts on the due ones
 * under a row lock, so exactly one node acts on each; this node's timers only wake the sweep
 * early. What a sweep decides reaches the runner's node, and wakes idle runners anywhere, over
 * the {@link ClusterBus}.
 */
public final class JobLifecycle {
    private final RunningMessages runWords;
    private final FinalMessages finalWords;
    private final Cancels cancels;
    private final DeadlineSweep sweep;
    private final Presence presence;

    public JobLifecycle(
            Store store,
            ActiveJobs active,
            Deadlines deadlines,
            Dispatcher dispatcher,
            Sessions sessions,
            Liveness liveness,
            ResultProcessor results,
            BatonMetrics metrics,
            Clock clock,
            LifecycleSettings settings,
            LiveLogs logs,
            PendingExplainer explainer,
            ClusterBus bus,
            Changes changes) {
        // The parts' timers wake the sweep through this door (the sweep is built after the context it uses).
        LifecycleContext ctx = new LifecycleContext(
                store,
                active,
                deadlines,
                dispatcher,
                sessions,
                liveness,
                results,
                metrics,
                clock,
                settings,
                logs,
                explainer,
                bus,
                changes,
                this::sweepQuietly);
        AttemptResolver resolver = new AttemptResolver(ctx);
        this.cancels = new Cancels(ctx);
        this.runWords = new RunningMessages(ctx, resolver, cancels);
        this.finalWords = new FinalMessages(ctx, resolver);
        this.sweep = new DeadlineSweep(ctx, cancels);
        this.presence = new Presence(ctx);
        dispatcher.onAcceptanceTimeout(a -> sweepQuietly());
    }

    // ---- the runner's words ---------------------------------------------------------------------------

    public ServerMessage preparing(RunnerSession session, RunnerMessage.Preparing m) {
        return runWords.preparing(session, m);
    }

    public ServerMessage running(RunnerSession session, RunnerMessage.Running m) {
        return runWords.running(session, m);
    }

    public ServerMessage heartbeat(RunnerSession session, RunnerMessage.Heartbeat m) {
        return runWords.heartbeat(session, m);
    }

    /** A chunk of live output: liveness, and this node's log tail (nothing is stored). */
    public ServerMessage log(RunnerSession session, RunnerMessage.Log m) {
        return runWords.log(session, m);
    }

    public ServerMessage declined(RunnerSession session, RunnerMessage.Declined m) {
        return runWords.declined(session, m);
    }

    /** {@code completed}, {@code failed} or {@code canceled}: applied once, acknowledged every time it is resent. */
    public ServerMessage terminal(RunnerSession session, RunnerMessage.Terminal m) {
        return finalWords.terminal(session, m);
    }

    // ---- connections and this node ------------------------------------------------------------------

    /** The runner's channel opened on this node (see {@link Presence#connectionOpened}). */
    public void connectionOpened(RunnerSession session) {
        presence.connectionOpened(session);
    }

    /** The runner's current channel closed: its attempts get one heartbeat timeout to come back. */
    public void connectionClosed(RunnerSession session) {
        presence.connectionClosed(session);
    }

    /** The channel has been silent for the heartbeat timeout: its attempts are lost now. */
    public void readTimedOut(RunnerSession session) {
        presence.readTimedOut(session);
    }

    /** Detaches runners the store records on this node without a channel here; returns how many. */
    public int detachStrayRunners() {
        return presence.detachStrayRunners();
    }

    /** A crash in a test: this node stops acting and writes nothing more. */
    public void halt() {
        presence.halt();
    }

    /** Graceful server shutdown: in-flight jobs stay as they are for the runners to reconnect to (here or on another node). */
    public void shutdown() {
        presence.shutdown();
    }

    /** At start: the node registers, and stored but unparsed outputs are processed again. */
    public void recover() {
        presence.recover();
    }

    /** This node was found dead by another while it was paused: it registers again and re-attaches its runners. */
    public void rejoin() {
        presence.rejoin();
    }

    // ---- cancels -------------------------------------------------------------------------------------

    /** A user canceled the job in the store: tell its runner now (not on its next heartbeat), wherever it is connected. */
    public void userCanceled(Job before) {
        cancels.userCanceled(before);
    }

    /** The job was canceled while attempt {@code attempt} ran: its runner, if connected here, is told to stop. */
    public void runnerCancel(JobUuid job, int attempt, long runnerId, String reason, LeaseId lease) {
        cancels.runnerCancel(job, attempt, runnerId, reason, lease);
    }

    // ---- deadlines -----------------------------------------------------------------------------------

    /** Acts on every deadline due in the store, whichever node set it; returns how many jobs were acted on. */
    public int sweep() {
        return sweep.sweep();
    }

    /** The sweep from a timer or a background loop: a database hiccup is logged and the next sweep tries again. */
    public void sweepQuietly() {
        sweep.sweepQuietly();
    }

    /** A job entered the queue: if it has a queue timeout, wake the sweep when that passes. */
    public void queued(Job job) {
        sweep.queued(job);
    }

    /**
     * Attempt {@code attempt} of the job is over (a sweep here or on another node ended it): dropped
     * from memory and, when {@code reason} is given, its runner told {@code stale} if connected here.
     * {@code lease} is null when another node sent this (leases never travel).
     */
    public void attemptEnded(JobUuid job, int attempt, long runnerId, String reason, LeaseId lease) {
        sweep.attemptEnded(job, attempt, runnerId, reason, lease);
    }
}

package dev.baton.dispatch;

import dev.baton.core.events.Changes;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.dispatch.cluster.ClusterBus;
import dev.baton.dispatch.logs.LiveLogs;
import dev.baton.dispatch.output.ResultProcessor;
import dev.baton.store.Store;
import java.time.Clock;

/**
 * The life of an attempt after its claim: acceptance ({@code preparing}, {@code running},
 * {@code declined}), liveness, the runner's final word, and every timeout (acceptance window,
 * read timeout, disconnect, hard timeout, cancel deadline), plus recovery after a restart. This
 * record only wires the parts; the channel, the lease routes and the assembly call each part
 * directly, the one that owns the transition:
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
 * column written with the transition that starts it, and {@link DeadlineSweep#sweep} acts on the due ones
 * under a row lock, so exactly one node acts on each; this node's timers only wake the sweep
 * early. What a sweep decides reaches the runner's node, and wakes idle runners anywhere, over
 * the {@link ClusterBus}.
 */
public record JobLifecycle(
        RunningMessages runningMessages,
        FinalMessages finalMessages,
        Cancels cancels,
        DeadlineSweep deadlineSweep,
        Presence presence) {

    /** Builds the parts on what they share (their {@link LifecycleContext}), each once. */
    public static JobLifecycle wire(
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
        // The context's timers wake the sweep, and the sweep acts through the context: the one
        // cycle among the parts, closed here once both exist.
        SweepSoon sweepSoon = new SweepSoon();
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
                sweepSoon);
        AttemptResolver resolver = new AttemptResolver(ctx);
        Cancels cancels = new Cancels(ctx);
        DeadlineSweep sweep = new DeadlineSweep(ctx, cancels);
        sweepSoon.sweep = sweep;
        dispatcher.onAcceptanceTimeout(a -> sweep.sweepQuietly());
        return new JobLifecycle(
                new RunningMessages(ctx, resolver, cancels),
                new FinalMessages(ctx, resolver),
                cancels,
                sweep,
                new Presence(ctx));
    }

    /** What the context's timers run: the sweep, once it is wired (no timer is set before). */
    private static final class SweepSoon implements Runnable {
        private volatile DeadlineSweep sweep;

        @Override
        public void run() {
            sweep.sweepQuietly();
        }
    }
}

package dev.baton.dispatch.channel;

import dev.baton.dispatch.Dispatcher;
import dev.baton.dispatch.JobLifecycle;
import dev.baton.dispatch.RunnerSpecSets;
import dev.baton.dispatch.Sessions;
import dev.baton.dispatch.cluster.ClusterChanges;
import dev.baton.dispatch.cluster.ClusterEvent;
import dev.baton.protocol.message.Wire;
import dev.baton.store.Store;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What another node told this one over the cluster bus ({@link dev.baton.dispatch.cluster.ClusterBus}):
 * pending work and finished jobs for this node's waiting runners, ended attempts and cancels for
 * the runners connected here, messages to them, what watchers changed, and spec changes. A resync
 * (the bus may have dropped notifications) reads again everything a missed event could have told.
 */
final class ClusterEventHandler implements Consumer<ClusterEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterEventHandler.class);

    private final Store store;
    private final Sessions sessions;
    private final Dispatcher dispatcher;
    private final JobLifecycle lifecycle;
    private final ClusterChanges clusterChanges;
    private final RunnerSpecSets specSets;

    ClusterEventHandler(
            Store store,
            Sessions sessions,
            Dispatcher dispatcher,
            JobLifecycle lifecycle,
            ClusterChanges clusterChanges,
            RunnerSpecSets specSets) {
        this.store = store;
        this.sessions = sessions;
        this.dispatcher = dispatcher;
        this.lifecycle = lifecycle;
        this.clusterChanges = clusterChanges;
        this.specSets = specSets;
    }

    /** Handles {@code event} on a virtual thread of its own, so that the bus's listener keeps listening. */
    @Override
    public void accept(ClusterEvent event) {
        Thread.ofVirtual().name("baton-cluster-event").start(() -> {
            try {
                switch (event) {
                    case ClusterEvent.Pending p -> dispatcher.jobPendingElsewhere(p.specId());
                    case ClusterEvent.Finished f -> dispatcher.jobFinished();
                    case ClusterEvent.AttemptEnded e ->
                        lifecycle.deadlineSweep().attemptEnded(e.job(), e.attempt(), e.runnerId(), e.reason(), null);
                    case ClusterEvent.CancelRunner c ->
                        lifecycle.cancels().runnerCancel(c.job(), c.attempt(), c.runnerId(), c.reason(), null);
                    case ClusterEvent.ToRunner t ->
                        sessions.of(t.runnerId()).ifPresent(s -> s.send(Wire.decodeServerMessage(t.message())));
                    case ClusterEvent.Watching w -> clusterChanges.heard(w);
                    case ClusterEvent.Changed c -> clusterChanges.heard(c);
                    case ClusterEvent.SpecsChanged c -> specsChangedElsewhere();
                    case ClusterEvent.Resync r -> {
                        specsChangedElsewhere(); // a change may have been missed
                        clusterChanges.heard(r);
                        lifecycle.deadlineSweep().sweepQuietly();
                        dispatcher.lookAgain(); // a pending job's notification may have been missed
                    }
                }
            } catch (RuntimeException e) {
                LOG.warn("handling {} from another node failed: {}", event, e.toString());
            }
        });
    }

    /** Another node changed specs or runner specs (or may have): what this node caches of them is read again. */
    private void specsChangedElsewhere() {
        specSets.invalidate();
        store.specs().specsChangedElsewhere();
    }
}

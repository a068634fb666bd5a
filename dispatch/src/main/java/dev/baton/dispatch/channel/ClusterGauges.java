package dev.baton.dispatch.channel;

import dev.baton.core.metrics.BatonMetrics;
import dev.baton.store.ClusterCounts;
import dev.baton.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.ToLongFunction;

/**
 * Cluster-wide and per-node gauges read from the store, so that every node reports the same
 * queue: one query per scrape at most once a second (a scrape reads several gauges).
 */
final class ClusterGauges {
    private static final Duration FRESH = Duration.ofSeconds(1);

    private final Store store;
    private final String nodeId;
    private final Duration nodeTimeout;
    private final Clock clock;
    private ClusterCounts last;
    private Instant readAt;

    ClusterGauges(Store store, String nodeId, Duration nodeTimeout, Clock clock) {
        this.store = store;
        this.nodeId = nodeId;
        this.nodeTimeout = nodeTimeout;
        this.clock = clock;
    }

    void register(BatonMetrics metrics) {
        metrics.gauge(
                "baton.cluster.jobs.pending",
                "Jobs pending in the store (all nodes)",
                () -> read(ClusterCounts::pending));
        metrics.gauge(
                "baton.cluster.jobs.in_flight",
                "Jobs claimed or running in the store (all nodes)",
                () -> read(ClusterCounts::inFlight));
        metrics.gauge(
                "baton.cluster.nodes.alive",
                "Server nodes that heartbeat within the node timeout",
                () -> read(ClusterCounts::nodesAlive));
        metrics.gauge(
                "baton.node.runners",
                "Runners whose channel the store records on this node",
                () -> read(ClusterCounts::nodeRunners));
        metrics.gauge(
                "baton.cluster.runners.quarantined",
                "Runners quarantined for infrastructure failures (all nodes)",
                () -> read(ClusterCounts::quarantinedRunners));
        metrics.gauge(
                "baton.node.jobs.in_flight",
                "Jobs in flight on runners connected to this node",
                () -> read(ClusterCounts::nodeInFlight));
    }

    private synchronized long read(ToLongFunction<ClusterCounts> figure) {
        Instant now = clock.instant();
        if (last == null || readAt == null || !now.isBefore(readAt.plus(FRESH)) || now.isBefore(readAt)) {
            try {
                last = store.nodes().clusterCounts(nodeId, now.minus(nodeTimeout));
                readAt = now;
            } catch (RuntimeException e) {
                if (last == null) return -1; // the database is unreachable: say so rather than 0
            }
        }
        return figure.applyAsLong(last);
    }
}

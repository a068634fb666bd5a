package dev.baton.store;

/**
 * Figures for metrics, read from the store so that every node reports the same cluster: jobs
 * pending and in flight, live nodes, this node's own share (runners attached, their jobs in flight),
 * and runners quarantined for flaky infrastructure (docs/scheduling.md).
 */
public record ClusterCounts(
        long pending, long inFlight, long nodesAlive, long nodeRunners, long nodeInFlight, long quarantinedRunners) {
    /** The figures without quarantined runners (none). */
    public ClusterCounts(long pending, long inFlight, long nodesAlive, long nodeRunners, long nodeInFlight) {
        this(pending, inFlight, nodesAlive, nodeRunners, nodeInFlight, 0);
    }
}

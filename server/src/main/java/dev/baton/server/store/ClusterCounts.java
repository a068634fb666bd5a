package dev.baton.server.store;

/**
 * Figures for metrics, read from the store so that every node reports the same cluster: jobs
 * pending and in flight, live nodes, and this node's own share (runners attached, their jobs in flight).
 */
public record ClusterCounts(long pending, long inFlight, long nodesAlive, long nodeRunners, long nodeInFlight) {}

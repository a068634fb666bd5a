package dev.baton.store;

import dev.baton.protocol.id.JobUuid;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The store's part for the cluster (docs/decisions/0006-cluster.md): server nodes, their
 * liveness, and which node holds each runner's channel.
 */
public interface Nodes {
    /** The runner's channel is now on {@code node} (a runner's session records its node). */
    void attachRunner(long runnerId, String node);

    /**
     * The runner's channel on {@code node} closed: unless it is attached elsewhere already, its
     * jobs in flight are lost at {@code lostAt} unless it comes back (the earliest such time stays).
     */
    void detachRunner(long runnerId, String node, Instant lostAt);

    /** The runner's channel went silent: its jobs in flight are lost at {@code at} (now). */
    void markRunnerLost(long runnerId, Instant at);

    /** The node holding the runner's channel, if any. */
    Optional<String> runnerNode(long runnerId);

    /** The runners whose channel the store records on {@code node}. */
    List<Long> runnersOn(String node);

    /**
     * A node starts: its row is created or restarted. If a previous run of the same id did not
     * stop cleanly, its runners are detached with their jobs lost at {@code lostAt}. If no other
     * node has heartbeaten since {@code aliveSince}, the whole cluster was down and no runner could
     * reach any node: every node not stopped is taken over the same way, and no lost deadline falls
     * before {@code lostAt} (the runners get their heartbeat timeout from now to come back, as
     * after any start).
     */
    void registerNode(String node, Instant now, Instant lostAt, Instant aliveSince);

    /**
     * One liveness flush of a node, one transaction: the node's heartbeat, then each table's
     * batched last_heartbeat (see {@link JobLiveness#recordJobHeartbeats}, {@link Runners#recordRunnerHeartbeats}).
     * False when the node is not registered, or was found dead by another node meanwhile (it was
     * paused past the node timeout): it must register again and re-attach its runners.
     */
    boolean recordLiveness(String node, Instant now, Map<JobUuid, Instant> jobs, Map<Long, Instant> runners);

    /** A clean stop: the node is marked stopped and its runners detached, their jobs lost at {@code lostAt} unless they come back. */
    void stopNode(String node, Instant now, Instant lostAt);

    /**
     * Nodes other than {@code self} not stopped whose last heartbeat is before {@code staleBefore}: each is marked stopped
     * and its runners detached, their jobs lost at the node's last heartbeat plus
     * {@code heartbeatTimeout} (or now, if later) — as if each of its runners had disconnected
     * when the node was last heard of. Row-locked like {@link JobLiveness#sweepDue}. Returns the nodes found dead.
     */
    List<String> expireNodes(String self, Instant staleBefore, Instant now, Duration heartbeatTimeout);

    List<Node> listNodes();

    /** Where the other nodes reach {@code node} (its {@code advertise_url}), written once it listens. */
    void advertiseNode(String node, String url);

    /**
     * The address {@code node} advertised, if it is alive (not stopped, heartbeat since
     * {@code aliveSince}) and advertised one: a dead node is never asked (docs/decisions/0016-cross-node-live.md).
     */
    Optional<String> liveNodeUrl(String node, Instant aliveSince);

    /** Cluster-wide figures computed from the store (metrics). */
    ClusterCounts clusterCounts(String node, Instant aliveSince);
}

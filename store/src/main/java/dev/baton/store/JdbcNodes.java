package dev.baton.store;

import static dev.baton.store.Rows.micros;

import dev.baton.protocol.id.JobUuid;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jdbi.v3.core.Handle;

/** Server nodes sharing the database: registration, liveness, and the runners attached to each. */
final class JdbcNodes implements Nodes {
    private final StoreContext context;
    private final SqlDialect dialect;

    JdbcNodes(StoreContext context, SqlDialect dialect) {
        this.context = context;
        this.dialect = dialect;
    }

    @Override
    public void attachRunner(long runnerId, String node) {
        context.write(h -> h.createUpdate("UPDATE runner SET node_id = :node WHERE id = :id")
                .bind("node", node)
                .bind("id", runnerId)
                .execute());
    }

    @Override
    public void detachRunner(long runnerId, String node, Instant lostAt) {
        context.write(h -> {
            int detached = h.createUpdate("UPDATE runner SET node_id = NULL WHERE id = :id AND node_id = :node")
                    .bind("id", runnerId)
                    .bind("node", node)
                    .execute();
            // Attached to another node meanwhile (it reconnected there first): that node watches it.
            if (detached == 0 && runnerNode(h, runnerId).isPresent()) return 0;
            return h.createUpdate(
                            "UPDATE job SET lost_deadline = COALESCE(lost_deadline, :at) WHERE runner_id = :id AND status IN (1, 2)")
                    .bind("at", micros(lostAt))
                    .bind("id", runnerId)
                    .execute();
        });
    }

    @Override
    public void markRunnerLost(long runnerId, Instant at) {
        context.write(
                h -> h.createUpdate("UPDATE job SET lost_deadline = :at WHERE runner_id = :id AND status IN (1, 2)"
                                + " AND (lost_deadline IS NULL OR lost_deadline > :at)")
                        .bind("at", micros(at))
                        .bind("id", runnerId)
                        .execute());
    }

    @Override
    public Optional<String> runnerNode(long runnerId) {
        return context.read(h -> runnerNode(h, runnerId));
    }

    private Optional<String> runnerNode(Handle h, long runnerId) {
        return h.createQuery("SELECT node_id FROM runner WHERE id = :id AND node_id IS NOT NULL")
                .bind("id", runnerId)
                .mapTo(String.class)
                .findOne();
    }

    @Override
    public List<Long> runnersOn(String node) {
        return context.read(h -> h.createQuery("SELECT id FROM runner WHERE node_id = :node ORDER BY id")
                .bind("node", node)
                .mapTo(Long.class)
                .list());
    }

    @Override
    public void registerNode(String node, Instant now, Instant lostAt, Instant aliveSince) {
        context.write(h -> {
            boolean crashed = h.createQuery("SELECT 1 FROM node WHERE id = :id AND stopped IS NULL")
                    .bind("id", node)
                    .mapTo(Integer.class)
                    .findOne()
                    .isPresent();
            // A previous run of this id that did not stop cleanly: nobody watches its runners now.
            if (crashed) detachNode(h, node, lostAt);
            boolean othersAlive = h.createQuery(
                            "SELECT 1 FROM node WHERE id <> :id AND stopped IS NULL AND last_heartbeat >= :since LIMIT 1")
                    .bind("id", node)
                    .bind("since", micros(aliveSince))
                    .mapTo(Integer.class)
                    .findOne()
                    .isPresent();
            if (!othersAlive) {
                // The cluster was down (a single node restarting, say): deadlines that ran out while no
                // node could hear a runner would fail its jobs before it can reconnect.
                for (String dead : h.createQuery("SELECT id FROM node WHERE id <> :id AND stopped IS NULL")
                        .bind("id", node)
                        .mapTo(String.class)
                        .list()) {
                    detachNode(h, dead, lostAt);
                    h.createUpdate("UPDATE node SET stopped = :now WHERE id = :id")
                            .bind("now", micros(now))
                            .bind("id", dead)
                            .execute();
                }
                h.createUpdate("UPDATE job SET lost_deadline = :at WHERE status IN (1, 2) AND lost_deadline < :at")
                        .bind("at", micros(lostAt))
                        .execute();
            }
            return h.createUpdate(
                            "INSERT INTO node (id, started, last_heartbeat, stopped) VALUES (:id, :now, :now, NULL)"
                                    + " ON CONFLICT (id) DO UPDATE SET started = excluded.started, last_heartbeat = excluded.last_heartbeat, stopped = NULL")
                    .bind("id", node)
                    .bind("now", micros(now))
                    .execute();
        });
    }

    @Override
    public boolean recordLiveness(String node, Instant now, Map<JobUuid, Instant> jobs, Map<Long, Instant> runners) {
        Map<JobUuid, Instant> due = context.skippedHeartbeats.takeWith(jobs);
        record Written(boolean alive, Set<JobUuid> skipped) {}
        Written written = context.write(h -> {
            int alive = h.createUpdate(
                            "UPDATE node SET last_heartbeat = CASE WHEN last_heartbeat < :now THEN :now ELSE last_heartbeat END"
                                    + " WHERE id = :id AND stopped IS NULL")
                    .bind("now", micros(now))
                    .bind("id", node)
                    .execute();
            Set<JobUuid> skipped = due.isEmpty() ? Set.of() : dialect.jobHeartbeats(context.statements, h, due);
            if (!runners.isEmpty()) {
                LatestTimes.write(context.statements, h, "runner", "id", "", new TreeMap<>(runners));
            }
            return new Written(alive > 0, skipped);
        });
        context.skippedHeartbeats.keep(due, written.skipped());
        return written.alive();
    }

    @Override
    public void stopNode(String node, Instant now, Instant lostAt) {
        context.write(h -> {
            detachNode(h, node, lostAt);
            return h.createUpdate("UPDATE node SET stopped = :now WHERE id = :id")
                    .bind("now", micros(now))
                    .bind("id", node)
                    .execute();
        });
    }

    @Override
    public List<String> expireNodes(
            String self, Instant staleBefore, Instant now, java.time.Duration heartbeatTimeout) {
        String due =
                "SELECT id, last_heartbeat FROM node WHERE stopped IS NULL AND id <> :self AND last_heartbeat < :before";
        // A read first: the sweep runs every second on every node, and nodes are seldom dead.
        if (context.read(h -> h.createQuery(due + " LIMIT 1")
                        .bind("self", self)
                        .bind("before", micros(staleBefore))
                        .mapToMap()
                        .findOne())
                .isEmpty()) {
            return List.of();
        }
        return context.write(h -> {
            List<Map.Entry<String, Long>> dead = h.createQuery(due + " ORDER BY id" + dialect.sweepLock())
                    .bind("self", self)
                    .bind("before", micros(staleBefore))
                    .map((rs, ctx) -> Map.entry(rs.getString("id"), rs.getLong("last_heartbeat")))
                    .list();
            List<String> ids = new ArrayList<>();
            for (var d : dead) {
                long lostAt = Math.max(micros(now), d.getValue() + heartbeatTimeout.toNanos() / 1000);
                detachNode(h, d.getKey(), Instant.EPOCH.plus(lostAt, java.time.temporal.ChronoUnit.MICROS));
                h.createUpdate("UPDATE node SET stopped = :now WHERE id = :id")
                        .bind("now", micros(now))
                        .bind("id", d.getKey())
                        .execute();
                ids.add(d.getKey());
            }
            return ids;
        });
    }

    /** The node's runners are detached, their jobs in flight lost at {@code lostAt} unless they come back. */
    private void detachNode(Handle h, String node, Instant lostAt) {
        h.createUpdate("UPDATE job SET lost_deadline = COALESCE(lost_deadline, :at) WHERE status IN (1, 2)"
                        + " AND runner_id IN (SELECT id FROM runner WHERE node_id = :node)")
                .bind("at", micros(lostAt))
                .bind("node", node)
                .execute();
        h.createUpdate("UPDATE runner SET node_id = NULL WHERE node_id = :node")
                .bind("node", node)
                .execute();
    }

    @Override
    public List<Node> listNodes() {
        return context.read(h -> h.createQuery("SELECT n.id, n.started, n.last_heartbeat, n.stopped, n.advertise_url,"
                        + " (SELECT COUNT(*) FROM runner r WHERE r.node_id = n.id) AS runners,"
                        + " (SELECT COUNT(*) FROM job j JOIN runner r ON r.id = j.runner_id WHERE r.node_id = n.id AND j.status IN (1, 2)) AS in_flight"
                        + " FROM node n ORDER BY n.id")
                .map((rs, ctx) -> new Node(
                        rs.getString("id"),
                        Rows.instant(rs, "started"),
                        Rows.instant(rs, "last_heartbeat"),
                        Rows.instant(rs, "stopped"),
                        rs.getInt("runners"),
                        rs.getInt("in_flight"),
                        rs.getString("advertise_url")))
                .list());
    }

    @Override
    public void advertiseNode(String node, String url) {
        context.write(h -> h.createUpdate("UPDATE node SET advertise_url = :url WHERE id = :id")
                .bind("url", url)
                .bind("id", node)
                .execute());
    }

    @Override
    public Optional<String> liveNodeUrl(String node, Instant aliveSince) {
        return context.read(h -> h.createQuery(
                        "SELECT advertise_url FROM node WHERE id = :id AND stopped IS NULL AND last_heartbeat >= :since"
                                + " AND advertise_url IS NOT NULL")
                .bind("id", node)
                .bind("since", micros(aliveSince))
                .mapTo(String.class)
                .findOne());
    }

    @Override
    public ClusterCounts clusterCounts(String node, Instant aliveSince) {
        return context.read(h -> h.createQuery(
                        "SELECT"
                                + " (SELECT COUNT(*) FROM job WHERE status = 0) AS pending,"
                                + " (SELECT COUNT(*) FROM job WHERE status IN (1, 2)) AS in_flight,"
                                + " (SELECT COUNT(*) FROM node WHERE stopped IS NULL AND last_heartbeat >= :since) AS alive,"
                                + " (SELECT COUNT(*) FROM runner WHERE node_id = :node) AS node_runners,"
                                + " (SELECT COUNT(*) FROM job j JOIN runner r ON r.id = j.runner_id WHERE r.node_id = :node AND j.status IN (1, 2)) AS node_in_flight,"
                                + " (SELECT COUNT(*) FROM runner WHERE quarantined IS NOT NULL AND archived IS NULL) AS quarantined")
                .bind("since", micros(aliveSince))
                .bind("node", node)
                .map((rs, ctx) -> new ClusterCounts(
                        rs.getLong("pending"),
                        rs.getLong("in_flight"),
                        rs.getLong("alive"),
                        rs.getLong("node_runners"),
                        rs.getLong("node_in_flight"),
                        rs.getLong("quarantined")))
                .one());
    }
}

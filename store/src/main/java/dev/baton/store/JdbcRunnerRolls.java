package dev.baton.store;

import static dev.baton.store.Rows.micros;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** Fleet upgrades: rolls, their steps and the lease on the running one (V25). */
final class JdbcRunnerRolls implements RunnerRolls {
    private static final String ROLL =
            "id, uuid, state, target, version, url, checksum, max_unavailable, rejoin_timeout, reason, created_by,"
                    + " created, modified, ended";

    private final StoreContext context;

    JdbcRunnerRolls(StoreContext context) {
        this.context = context;
    }

    @Override
    public Roll createRoll(NewRoll roll, List<Long> runnerIds, Instant now) {
        return context.unique(
                "a roll is running already; wait for it to end",
                () -> context.write(h -> {
                    long id = h.createQuery(
                                    "INSERT INTO runner_roll (uuid, state, target, version, url, checksum, max_unavailable, rejoin_timeout,"
                                            + " created_by, created, modified) VALUES (:uuid, 'running', :target, :version, :url, :checksum, :max, :timeout,"
                                            + " :by, :now, :now) RETURNING id")
                            .bind("uuid", UUID.randomUUID().toString())
                            .bind("target", roll.target())
                            .bind("version", roll.version())
                            .bind("url", roll.url())
                            .bind("checksum", roll.checksum())
                            .bind("max", roll.maxUnavailable())
                            .bind("timeout", roll.rejoinTimeout().toSeconds())
                            .bind("by", roll.createdBy())
                            .bind("now", micros(now))
                            .mapTo(Long.class)
                            .one();
                    int position = 0;
                    for (long runner : runnerIds) {
                        h.createUpdate(
                                        "INSERT INTO runner_roll_step (roll_id, position, runner_id, state) VALUES (:roll, :position, :runner, 'pending')")
                                .bind("roll", id)
                                .bind("position", position++)
                                .bind("runner", runner)
                                .execute();
                    }
                    return roll(h, id).orElseThrow();
                }));
    }

    @Override
    public Optional<Roll> findRoll(UUID uuid) {
        return context.read(h -> h.createQuery("SELECT id FROM runner_roll WHERE uuid = :uuid")
                .bind("uuid", uuid.toString())
                .mapTo(Long.class)
                .findOne()
                .flatMap(id -> roll(h, id)));
    }

    @Override
    public List<Roll> listRolls(int limit) {
        return context.read(h -> h
                .createQuery("SELECT id FROM runner_roll ORDER BY created DESC, id DESC LIMIT :limit")
                .bind("limit", limit)
                .mapTo(Long.class)
                .list()
                .stream()
                .map(id -> roll(h, id).orElseThrow())
                .toList());
    }

    @Override
    public Optional<Roll> leaseRunningRoll(String node, Instant now, Instant until) {
        // Every node asks once a second: with no roll running (nearly always) that stays a read, not a write
        // transaction.
        boolean running = context.read(h -> h.createQuery("SELECT 1 FROM runner_roll WHERE state = 'running'")
                        .mapTo(Integer.class)
                        .findOne())
                .isPresent();
        if (!running) return Optional.empty();
        return context.write(h -> {
            int taken = h.createUpdate(
                            "UPDATE runner_roll SET node = :node, node_expires = :until WHERE state = 'running'"
                                    + " AND (node IS NULL OR node = :node OR node_expires < :now)")
                    .bind("node", node)
                    .bind("until", micros(until))
                    .bind("now", micros(now))
                    .execute();
            if (taken == 0) return Optional.<Roll>empty();
            return h.createQuery("SELECT id FROM runner_roll WHERE state = 'running'")
                    .mapTo(Long.class)
                    .findOne()
                    .flatMap(id -> roll(h, id));
        });
    }

    @Override
    public boolean updateStep(
            long rollId,
            int position,
            String state,
            String fromVersion,
            Instant started,
            Instant ended,
            String message,
            Instant now) {
        return context.write(h -> {
            int n = h.createUpdate(
                            "UPDATE runner_roll_step SET state = :state, from_version = :from, started = :started, ended = :ended,"
                                    + " message = :message WHERE roll_id = :roll AND position = :position"
                                    + " AND EXISTS (SELECT 1 FROM runner_roll r WHERE r.id = :roll AND r.state = 'running')")
                    .bind("state", state)
                    .bind("from", fromVersion)
                    .bind("started", micros(started))
                    .bind("ended", micros(ended))
                    .bind("message", message)
                    .bind("roll", rollId)
                    .bind("position", position)
                    .execute();
            if (n > 0)
                h.createUpdate("UPDATE runner_roll SET modified = :now WHERE id = :roll")
                        .bind("now", micros(now))
                        .bind("roll", rollId)
                        .execute();
            return n > 0;
        });
    }

    @Override
    public boolean endRoll(long rollId, String state, String reason, Instant now) {
        return context.write(h ->
                h.createUpdate("UPDATE runner_roll SET state = :state, reason = :reason, ended = :now, modified = :now,"
                                        + " node = NULL, node_expires = NULL WHERE id = :roll AND state = 'running'")
                                .bind("state", state)
                                .bind("reason", reason)
                                .bind("now", micros(now))
                                .bind("roll", rollId)
                                .execute()
                        > 0);
    }

    private static Optional<Roll> roll(Handle h, long id) {
        List<RollStep> steps = h.createQuery(
                        "SELECT s.position, s.runner_id, r.slug, s.state, s.from_version, s.started, s.ended, s.message"
                                + " FROM runner_roll_step s JOIN runner r ON r.id = s.runner_id WHERE s.roll_id = :roll ORDER BY s.position")
                .bind("roll", id)
                .map((rs, c) -> step(rs))
                .list();
        return h.createQuery("SELECT " + ROLL + " FROM runner_roll WHERE id = :id")
                .bind("id", id)
                .map((rs, c) -> roll(rs, steps))
                .findOne();
    }

    private static RollStep step(ResultSet rs) throws SQLException {
        return new RollStep(
                rs.getInt("position"),
                rs.getLong("runner_id"),
                rs.getString("slug"),
                rs.getString("state"),
                rs.getString("from_version"),
                Rows.instant(rs, "started"),
                Rows.instant(rs, "ended"),
                rs.getString("message"));
    }

    private static Roll roll(ResultSet rs, List<RollStep> steps) throws SQLException {
        return new Roll(
                rs.getLong("id"),
                UUID.fromString(rs.getString("uuid")),
                rs.getString("state"),
                rs.getString("target"),
                rs.getString("version"),
                rs.getString("url"),
                rs.getString("checksum"),
                rs.getInt("max_unavailable"),
                Duration.ofSeconds(rs.getLong("rejoin_timeout")),
                rs.getString("reason"),
                rs.getString("created_by"),
                Rows.instant(rs, "created"),
                Rows.instant(rs, "modified"),
                Rows.instant(rs, "ended"),
                steps);
    }
}

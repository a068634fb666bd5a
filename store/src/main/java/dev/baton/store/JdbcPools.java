package dev.baton.store;

import static dev.baton.store.Rows.instant;
import static dev.baton.store.Rows.micros;
import static dev.baton.store.StoreContext.notFound;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.baton.protocol.message.Wire;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/** Runner pools, their machines and the scaler lease (V30, issue 43). */
final class JdbcPools implements Pools {
    private static final String POOL = "id, uuid, slug, spec_id, labels, min_idle, max_machines, idle_timeout,"
            + " boot_timeout, provider, provider_config, backoff_until, reason, failed_starts, created, modified";
    private static final String MACHINE = "id, uuid, pool_id, state, provider_id, runner_id, job_id, node, reason,"
            + " started, registered, idle_since, ended, modified";
    private static final String LEASE = "scaler";

    private final StoreContext context;

    JdbcPools(StoreContext context) {
        this.context = context;
    }

    @Override
    public Pool createPool(String slug, PoolSettings settings, Instant now) {
        return context.unique(
                "pool slug '" + slug + "' is taken",
                () -> context.write(h -> {
                    long id = h.createQuery("INSERT INTO pool (uuid, slug, spec_id, labels, min_idle, max_machines,"
                                    + " idle_timeout, boot_timeout, provider, provider_config, created, modified) VALUES"
                                    + " (:uuid, :slug, :spec, :labels, :minIdle, :max, :idle, :boot, :provider, :config, :now, :now)"
                                    + " RETURNING id")
                            .bind("uuid", UUID.randomUUID().toString())
                            .bind("slug", slug)
                            .bind("spec", settings.specId())
                            .bind("labels", json(settings.labels()))
                            .bind("minIdle", settings.minIdle())
                            .bind("max", settings.max())
                            .bind("idle", settings.idleTimeout().toSeconds())
                            .bind("boot", settings.bootTimeout().toSeconds())
                            .bind("provider", settings.provider())
                            .bind("config", settings.providerConfig())
                            .bind("now", micros(now))
                            .mapTo(Long.class)
                            .one();
                    return pool(h, "id = :ref", id).orElseThrow();
                }));
    }

    @Override
    public Optional<Pool> findPool(String slugOrUuid) {
        boolean uuid = slugOrUuid.length() == 36 && slugOrUuid.charAt(8) == '-';
        return context.read(h -> pool(h, uuid ? "uuid = :ref" : "slug = :ref", slugOrUuid));
    }

    @Override
    public List<Pool> listPools() {
        return context.read(h -> h.createQuery("SELECT " + POOL + " FROM pool ORDER BY slug")
                .map((rs, ctx) -> pool(rs))
                .list());
    }

    @Override
    public Pool updatePool(long poolId, PoolSettings settings, Instant now) {
        return context.write(h -> {
            int n = h.createUpdate("UPDATE pool SET spec_id = :spec, labels = :labels, min_idle = :minIdle,"
                            + " max_machines = :max, idle_timeout = :idle, boot_timeout = :boot, provider = :provider,"
                            + " provider_config = :config, modified = :now WHERE id = :id")
                    .bind("spec", settings.specId())
                    .bind("labels", json(settings.labels()))
                    .bind("minIdle", settings.minIdle())
                    .bind("max", settings.max())
                    .bind("idle", settings.idleTimeout().toSeconds())
                    .bind("boot", settings.bootTimeout().toSeconds())
                    .bind("provider", settings.provider())
                    .bind("config", settings.providerConfig())
                    .bind("now", micros(now))
                    .bind("id", poolId)
                    .execute();
            if (n == 0) throw notFound("pool", poolId);
            return pool(h, "id = :ref", poolId).orElseThrow();
        });
    }

    @Override
    public boolean deletePool(long poolId) {
        return context.write(h -> {
            h.createUpdate("DELETE FROM pool_machine WHERE pool_id = :id")
                    .bind("id", poolId)
                    .execute();
            return h.createUpdate("DELETE FROM pool WHERE id = :id")
                            .bind("id", poolId)
                            .execute()
                    > 0;
        });
    }

    @Override
    public void setBackoff(long poolId, Instant until, String reason, boolean failedStart, Instant now) {
        context.write(h -> h.createUpdate("UPDATE pool SET backoff_until = :until, reason = :reason,"
                        + " failed_starts = failed_starts + :failed, modified = :now WHERE id = :id")
                .bind("until", micros(until))
                .bind("reason", until == null ? null : reason)
                .bind("failed", failedStart ? 1 : 0)
                .bind("now", micros(now))
                .bind("id", poolId)
                .execute());
    }

    @Override
    public PoolMachine addMachine(long poolId, Long runnerId, Long jobId, String node, Instant now) {
        return context.write(h -> {
            long id = h.createQuery(
                            "INSERT INTO pool_machine (uuid, pool_id, state, runner_id, job_id, node, started, modified)"
                                    + " VALUES (:uuid, :pool, 'starting', :runner, :job, :node, :now, :now) RETURNING id")
                    .bind("job", jobId)
                    .bind("uuid", UUID.randomUUID().toString())
                    .bind("pool", poolId)
                    .bind("runner", runnerId)
                    .bind("node", node)
                    .bind("now", micros(now))
                    .mapTo(Long.class)
                    .one();
            return h.createQuery("SELECT " + MACHINE + " FROM pool_machine WHERE id = :id")
                    .bind("id", id)
                    .map((rs, ctx) -> machine(rs))
                    .one();
        });
    }

    @Override
    public void setProviderId(long machineId, String providerId, Instant now) {
        context.write(h -> h.createUpdate("UPDATE pool_machine SET provider_id = :pid, modified = :now WHERE id = :id")
                .bind("pid", providerId)
                .bind("now", micros(now))
                .bind("id", machineId)
                .execute());
    }

    @Override
    public boolean moveMachine(
            long machineId, Set<PoolMachineState> from, PoolMachineState to, String reason, Long jobId, Instant now) {
        if (from.isEmpty()) return false;
        String states =
                from.stream().map(s -> "'" + s.wireName() + "'").sorted().collect(Collectors.joining(", "));
        return context.write(h -> h.createUpdate("UPDATE pool_machine SET state = :to, modified = :now,"
                                + " reason = COALESCE(:reason, reason), job_id = COALESCE(:job, job_id)"
                                + (to == PoolMachineState.IDLE
                                        ? ", registered = COALESCE(registered, :now), idle_since = :now"
                                        : "")
                                + (to == PoolMachineState.BUSY
                                        ? ", registered = COALESCE(registered, :now), idle_since = NULL"
                                        : "")
                                + (to.ended() ? ", ended = :now" : "")
                                + " WHERE id = :id AND state IN (" + states + ")")
                        .bind("to", to.wireName())
                        .bind("now", micros(now))
                        .bind("reason", reason)
                        .bind("job", jobId)
                        .bind("id", machineId)
                        .execute()
                > 0);
    }

    @Override
    public List<PoolMachine> liveMachines(long poolId) {
        return context.read(h -> h.createQuery("SELECT " + MACHINE
                        + " FROM pool_machine WHERE pool_id = :pool AND ended IS NULL ORDER BY started, id")
                .bind("pool", poolId)
                .map((rs, ctx) -> machine(rs))
                .list());
    }

    @Override
    public List<PoolMachine> machines(long poolId, int endedLimit) {
        return context.read(h -> {
            List<PoolMachine> live = h.createQuery(
                            "SELECT " + MACHINE
                                    + " FROM pool_machine WHERE pool_id = :pool AND ended IS NULL ORDER BY started DESC, id DESC")
                    .bind("pool", poolId)
                    .map((rs, ctx) -> machine(rs))
                    .list();
            List<PoolMachine> ended = h.createQuery("SELECT " + MACHINE + " FROM pool_machine WHERE pool_id = :pool"
                            + " AND ended IS NOT NULL ORDER BY ended DESC, id DESC LIMIT :limit")
                    .bind("pool", poolId)
                    .bind("limit", endedLimit)
                    .map((rs, ctx) -> machine(rs))
                    .list();
            return java.util.stream.Stream.concat(live.stream(), ended.stream()).toList();
        });
    }

    @Override
    public boolean takeScalerLease(String node, Instant now, Instant until) {
        return context.write(h -> {
            // Insert the row once; then a compare-and-set: ours already, or the last holder's expired.
            int taken = h.createUpdate("UPDATE pool_scaler_lease SET node = :node, expires = :until"
                            + " WHERE name = :name AND (node = :node OR expires < :now)")
                    .bind("node", node)
                    .bind("until", micros(until))
                    .bind("now", micros(now))
                    .bind("name", LEASE)
                    .execute();
            if (taken > 0) return true;
            boolean exists = h.createQuery("SELECT 1 FROM pool_scaler_lease WHERE name = :name")
                    .bind("name", LEASE)
                    .mapTo(Integer.class)
                    .findOne()
                    .isPresent();
            if (exists) return false;
            return h.createUpdate("INSERT INTO pool_scaler_lease (name, node, expires) VALUES (:name, :node, :until)"
                                    + " ON CONFLICT (name) DO NOTHING")
                            .bind("name", LEASE)
                            .bind("node", node)
                            .bind("until", micros(until))
                            .execute()
                    > 0;
        });
    }

    private Optional<Pool> pool(org.jdbi.v3.core.Handle h, String where, Object ref) {
        return h.createQuery("SELECT " + POOL + " FROM pool WHERE " + where)
                .bind("ref", ref)
                .map((rs, ctx) -> pool(rs))
                .findOne();
    }

    private static Pool pool(ResultSet rs) throws SQLException {
        return new Pool(
                rs.getLong("id"),
                UUID.fromString(rs.getString("uuid")),
                rs.getString("slug"),
                new PoolSettings(
                        rs.getLong("spec_id"),
                        labels(rs.getString("labels")),
                        rs.getInt("min_idle"),
                        rs.getInt("max_machines"),
                        Duration.ofSeconds(rs.getLong("idle_timeout")),
                        Duration.ofSeconds(rs.getLong("boot_timeout")),
                        rs.getString("provider"),
                        rs.getString("provider_config")),
                instant(rs, "backoff_until"),
                rs.getString("reason"),
                rs.getInt("failed_starts"),
                instant(rs, "created"),
                instant(rs, "modified"));
    }

    private static PoolMachine machine(ResultSet rs) throws SQLException {
        return new PoolMachine(
                rs.getLong("id"),
                UUID.fromString(rs.getString("uuid")),
                rs.getLong("pool_id"),
                PoolMachineState.of(rs.getString("state")),
                rs.getString("provider_id"),
                nullableLong(rs, "runner_id"),
                nullableLong(rs, "job_id"),
                rs.getString("node"),
                rs.getString("reason"),
                instant(rs, "started"),
                instant(rs, "registered"),
                instant(rs, "idle_since"),
                instant(rs, "ended"),
                instant(rs, "modified"));
    }

    private static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static String json(Map<String, String> labels) {
        try {
            return Wire.mapper().writeValueAsString(labels);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> labels(String json) {
        try {
            return Wire.mapper().readValue(json, new TypeReference<Map<String, String>>() {});
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("pool labels are not a JSON object: " + e.getMessage(), e);
        }
    }
}

package dev.baton.store;

import static dev.baton.store.Rows.micros;
import static dev.baton.store.StoreContext.notFound;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.protocol.value.Slug;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.Update;

/** Runners: registration, keys, labels, quarantine and their heartbeats. */
final class JdbcRunners implements Runners {
    /**
     * An attempt {@code a} that ended through the runner's machine rather than the job: lost
     * (before or after it started), never answered, or declined for a reason of the machine.
     * Not a job's own failure, and not the declines that say something about the job or the
     * spec (image refused, no command, image required, noisy machine) or about a runner that is
     * stopping. docs/scheduling.md lists them.
     */
    static final String INFRASTRUCTURE_FAILURE = "(a.outcome IN (" + AttemptOutcome.ACCEPT_TIMEOUT.code() + ", "
            + AttemptOutcome.LOST_BEFORE_START.code() + ", " + AttemptOutcome.LOST.code() + ") OR (a.outcome = "
            + AttemptOutcome.DECLINED.code()
            + " AND a.decline_code IN ('pull_failed', 'unpack_failed', 'executor_error', 'vm_boot_failed')))";

    private final StoreContext context;

    JdbcRunners(StoreContext context) {
        this.context = context;
    }

    @Override
    public Runner createRunner(String name, Slug slug, String keyHash, Instant now) {
        Objects.requireNonNull(keyHash, "key hash");
        return context.unique(
                "runner slug '" + slug + "' is taken",
                () -> context.write(h -> {
                    long id = h.createQuery("INSERT INTO runner (uuid, name, slug, token_hash, created, modified)"
                                    + " VALUES (:uuid, :name, :slug, :hash, :now, :now) RETURNING id")
                            .bind("uuid", UUID.randomUUID().toString())
                            .bind("name", name)
                            .bind("slug", slug.value())
                            .bind("hash", keyHash)
                            .bind("now", micros(now))
                            .mapTo(Long.class)
                            .one();
                    return context.runner(h, id).orElseThrow();
                }));
    }

    @Override
    public Runner createEphemeralRunner(String name, Slug slug, String keyHash, Long boundJob, Instant now) {
        Objects.requireNonNull(keyHash, "key hash");
        return context.unique(
                "runner slug '" + slug + "' is taken",
                () -> context.write(h -> {
                    long id = h.createQuery("INSERT INTO runner (uuid, name, slug, token_hash, created, modified,"
                                    + " ephemeral, bound_job_id) VALUES (:uuid, :name, :slug, :hash, :now, :now, 1, :job)"
                                    + " RETURNING id")
                            .bind("uuid", UUID.randomUUID().toString())
                            .bind("name", name)
                            .bind("slug", slug.value())
                            .bind("hash", keyHash)
                            .bind("now", micros(now))
                            .bind("job", boundJob)
                            .mapTo(Long.class)
                            .one();
                    if (boundJob != null) {
                        // The reservation: only while the job waits; one live runner per job (a
                        // reservation that lapsed, its runner archived or spent, is taken over).
                        int rows = h.createUpdate("UPDATE job SET bound_runner_id = :runner"
                                        + " WHERE id = :job AND status = 0 AND (bound_runner_id IS NULL"
                                        + " OR EXISTS (SELECT 1 FROM runner b WHERE b.id = job.bound_runner_id"
                                        + " AND (b.archived IS NOT NULL OR EXISTS (SELECT 1 FROM job_attempt ba"
                                        + " WHERE ba.runner_id = b.id AND ba.ended IS NOT NULL))))")
                                .bind("runner", id)
                                .bind("job", boundJob)
                                .execute();
                        if (rows == 0)
                            throw new StoreException(
                                    StoreException.Reason.CONFLICT,
                                    "the job is not pending or another runner is bound to it");
                    }
                    return context.runner(h, id).orElseThrow();
                }));
    }

    @Override
    public boolean isSpent(long runnerId) {
        return context.read(h -> h.createQuery(
                        "SELECT EXISTS (SELECT 1 FROM runner r WHERE r.id = :id AND " + ClaimSql.SPENT + ") AS spent")
                .bind("id", runnerId)
                .map((rs, ctx) -> rs.getBoolean("spent"))
                .one());
    }

    @Override
    public Optional<Runner> findRunner(ResourceId id) {
        return context.readPlain(c -> context.byResource(c, "runner", Rows.RUNNER, id, Rows::runner));
    }

    @Override
    public Optional<Runner> findRunner(long id) {
        return context.read(h -> context.runner(h, id));
    }

    @Override
    public List<Runner> listRunners(RunnerFilter filter) {
        StringBuilder sql = new StringBuilder("SELECT " + Rows.RUNNER + " FROM runner WHERE 1 = 1");
        if (!filter.archived()) sql.append(" AND archived IS NULL");
        if (filter.name() != null) sql.append(" AND name = :name");
        if (filter.search() != null)
            sql.append(" AND (LOWER(name) LIKE :search ESCAPE '!' OR slug LIKE :search ESCAPE '!')");
        sql.append(" ORDER BY created, id");
        return context.read(h -> {
            Query q = h.createQuery(sql.toString());
            if (filter.name() != null) q.bind("name", filter.name());
            if (filter.search() != null) q.bind("search", likePattern(filter.search()));
            return q.map(Rows.RUNNER_MAPPER).list();
        });
    }

    @Override
    public Runner updateRunner(long runnerId, String name, Slug slug, Boolean archived, Instant now) {
        return context.unique(
                "runner slug '" + slug + "' is taken",
                () -> context.write(h -> {
                    Update u = h.createUpdate("UPDATE runner SET modified = :now"
                            + (name != null ? ", name = :name" : "")
                            + (slug != null ? ", slug = :slug" : "")
                            + (archived == null
                                    ? ""
                                    : archived ? ", archived = COALESCE(archived, :now)" : ", archived = NULL")
                            + " WHERE id = :id");
                    u.bind("now", micros(now)).bind("id", runnerId);
                    if (name != null) u.bind("name", name);
                    if (slug != null) u.bind("slug", slug.value());
                    if (u.execute() == 0) throw notFound("runner", runnerId);
                    return context.runner(h, runnerId).orElseThrow();
                }));
    }

    @Override
    public Runner rotateRunnerKey(long runnerId, String keyHash, Instant now) {
        Objects.requireNonNull(keyHash, "key hash");
        return context.write(h -> {
            int rows = h.createUpdate(
                            "UPDATE runner SET token_hash = :hash, modified = :now WHERE id = :id AND archived IS NULL")
                    .bind("hash", keyHash)
                    .bind("now", micros(now))
                    .bind("id", runnerId)
                    .execute();
            if (rows == 0) {
                if (context.runner(h, runnerId).isEmpty()) throw notFound("runner", runnerId);
                throw new StoreException(
                        StoreException.Reason.CONFLICT,
                        "an archived runner's key cannot be rotated; restore the runner first");
            }
            return context.runner(h, runnerId).orElseThrow();
        });
    }

    @Override
    public Optional<Runner> authenticateRunner(ResourceId id, String keyHash) {
        if (keyHash == null) return Optional.empty();
        // One query by runner and hash together: a key only ever authenticates its own runner,
        // and a wrong runner or a wrong key look the same from outside.
        Optional<UUID> uuid = id.uuid();
        String where = uuid.isPresent() ? "uuid = :id" : "slug = :id";
        return context.read(h -> h.createQuery("SELECT " + Rows.RUNNER + " FROM runner WHERE " + where
                        + " AND token_hash = :hash AND archived IS NULL")
                .bind("id", uuid.map(UUID::toString).orElse(id.text()))
                .bind("hash", keyHash)
                .map(Rows.RUNNER_MAPPER)
                .findOne());
    }

    @Override
    public void recordRunnerHeartbeats(Map<Long, Instant> lastSeen) {
        if (lastSeen.isEmpty()) return;
        context.write(h -> LatestTimes.write(context.statements, h, "runner", "id", "", new TreeMap<>(lastSeen)));
    }

    @Override
    public Optional<Runner> quarantineIfFlaky(long runnerId, int threshold, java.time.Duration window, Instant now) {
        if (threshold < 1) throw new IllegalArgumentException("a quarantine threshold is at least 1");
        return context.write(h -> {
            long since = micros(now.minus(window));
            // Counted from the attempts themselves, so every node sharing the database counts the
            // same; failures before the last release do not count again.
            List<String> failures = h.createQuery(
                            "SELECT a.outcome, a.decline_code FROM job_attempt a JOIN runner r ON r.id = a.runner_id"
                                    + " WHERE a.runner_id = :runner AND a.ended >= :since AND (r.quarantine_released IS NULL OR a.ended > r.quarantine_released)"
                                    + " AND " + INFRASTRUCTURE_FAILURE + " ORDER BY a.ended DESC, a.id DESC")
                    .bind("runner", runnerId)
                    .bind("since", since)
                    .map((rs, ctx) -> {
                        String code = rs.getString("decline_code");
                        return code != null
                                ? "declined " + code
                                : AttemptOutcome.ofCode(rs.getInt("outcome"))
                                        .name()
                                        .toLowerCase(java.util.Locale.ROOT);
                    })
                    .list();
            if (failures.size() < threshold) return Optional.<Runner>empty();
            String within = window.toString().substring(2).toLowerCase(java.util.Locale.ROOT); // PT1H -> 1h
            String reason =
                    failures.size() + (failures.size() == 1 ? " infrastructure failure" : " infrastructure failures")
                            + " within " + within + " (threshold " + threshold + "; latest: " + failures.get(0) + ")";
            int rows = h.createUpdate(
                            "UPDATE runner SET quarantined = :now, quarantine_reason = :reason, modified = :now"
                                    + " WHERE id = :id AND quarantined IS NULL")
                    .bind("now", micros(now))
                    .bind("reason", reason)
                    .bind("id", runnerId)
                    .execute();
            return rows == 0 ? Optional.<Runner>empty() : context.runner(h, runnerId);
        });
    }

    @Override
    public Runner releaseRunner(long runnerId, Instant now) {
        return context.write(h -> {
            int rows = h.createUpdate(
                            "UPDATE runner SET quarantined = NULL, quarantine_reason = NULL, quarantine_released = :now, modified = :now"
                                    + " WHERE id = :id")
                    .bind("now", micros(now))
                    .bind("id", runnerId)
                    .execute();
            if (rows == 0) throw notFound("runner", runnerId);
            return context.runner(h, runnerId).orElseThrow();
        });
    }

    @Override
    public RunnerLabels runnerLabels(long runnerId) {
        return context.read(h -> {
            Map<String, String> admin = new java.util.TreeMap<>();
            Map<String, String> reported = new java.util.TreeMap<>();
            h.createQuery("SELECT source, key, value FROM runner_label WHERE runner_id = :runner")
                    .bind("runner", runnerId)
                    .mapToMap()
                    .forEach(row -> ("admin".equals(row.get("source")) ? admin : reported)
                            .put((String) row.get("key"), (String) row.get("value")));
            return new RunnerLabels(admin, reported);
        });
    }

    @Override
    public void setRunnerLabels(long runnerId, boolean admin, Map<String, String> labels, Instant now) {
        String source = admin ? "admin" : "runner";
        context.write(h -> {
            if (context.runner(h, runnerId).isEmpty()) throw notFound("runner", runnerId);
            h.createUpdate("DELETE FROM runner_label WHERE runner_id = :runner AND source = :source")
                    .bind("runner", runnerId)
                    .bind("source", source)
                    .execute();
            for (var e : new java.util.TreeMap<>(labels).entrySet()) {
                h.createUpdate(
                                "INSERT INTO runner_label (runner_id, source, key, value) VALUES (:runner, :source, :key, :value)")
                        .bind("runner", runnerId)
                        .bind("source", source)
                        .bind("key", e.getKey())
                        .bind("value", e.getValue())
                        .execute();
            }
            if (admin)
                h.createUpdate("UPDATE runner SET modified = :now WHERE id = :id")
                        .bind("now", micros(now))
                        .bind("id", runnerId)
                        .execute();
            return null;
        });
    }

    private static String likePattern(String search) {
        String escaped = search.toLowerCase(java.util.Locale.ROOT)
                .replace("!", "!!")
                .replace("%", "!%")
                .replace("_", "!_");
        return "%" + escaped + "%";
    }

    // ---- machines (issue 41) ----------------------------------------------------------------------

    private static final String MACHINE =
            "m.id, m.runner_id, m.os, m.arch, m.version, m.host, m.pid, m.agent_started, m.address, m.seen";

    @Override
    public KnownMachine recordMachine(long runnerId, RunnerHost machine, Instant now) {
        return context.write(h -> machineIn(h, runnerId, machine, now, true));
    }

    /** The runner's latest machine when identical, else a new row; {@code latest}: it becomes the runner's latest. */
    private KnownMachine machineIn(Handle h, long runnerId, RunnerHost machine, Instant now, boolean latest) {
        Optional<KnownMachine> current = h.createQuery("SELECT " + MACHINE
                        + " FROM runner_machine m JOIN runner r ON r.machine_id = m.id" + " WHERE r.id = :runner")
                .bind("runner", runnerId)
                .map((rs, c) -> machine(rs))
                .findOne();
        if (current.isPresent() && current.get().host().equals(machine)) return current.get();
        long id = h.createQuery(
                        "INSERT INTO runner_machine (runner_id, os, arch, version, host, pid, agent_started, address, seen)"
                                + " VALUES (:runner, :os, :arch, :version, :host, :pid, :started, :address, :now) RETURNING id")
                .bind("runner", runnerId)
                .bind("os", machine.os())
                .bind("arch", machine.arch())
                .bind("version", machine.version())
                .bind("host", machine.host())
                .bind("pid", machine.pid())
                .bind("started", micros(machine.agentStarted()))
                .bind("address", machine.address())
                .bind("now", micros(now))
                .mapTo(Long.class)
                .one();
        if (latest)
            h.createUpdate("UPDATE runner SET machine_id = :id WHERE id = :runner")
                    .bind("id", id)
                    .bind("runner", runnerId)
                    .execute();
        return new KnownMachine(id, runnerId, machine, now);
    }

    @Override
    public Optional<KnownMachine> latestMachine(long runnerId) {
        return context.read(h -> h.createQuery("SELECT " + MACHINE
                        + " FROM runner_machine m JOIN runner r ON r.machine_id = m.id" + " WHERE r.id = :runner")
                .bind("runner", runnerId)
                .map((rs, c) -> machine(rs))
                .findOne());
    }

    @Override
    public Map<Long, KnownMachine> latestMachines() {
        return context.read(h -> {
            Map<Long, KnownMachine> machines = new TreeMap<>();
            h.createQuery("SELECT " + MACHINE + " FROM runner_machine m JOIN runner r ON r.machine_id = m.id")
                    .map((rs, c) -> machine(rs))
                    .forEach(m -> machines.put(m.runnerId(), m));
            return machines;
        });
    }

    @Override
    public boolean recordAttemptMachine(long runnerId, JobUuid job, LeaseId lease, RunnerHost machine, Instant now) {
        return context.write(h -> {
            // A machine behind the router seen before is found again; the router's latest stays its own.
            Optional<KnownMachine> seen = h
                    .createQuery("SELECT " + MACHINE + " FROM runner_machine m WHERE m.runner_id = :runner"
                            + " ORDER BY m.seen DESC, m.id DESC LIMIT 256")
                    .bind("runner", runnerId)
                    .map((rs, c) -> machine(rs))
                    .list()
                    .stream()
                    .filter(m -> m.host().equals(machine))
                    .findFirst();
            long id = seen.isPresent()
                    ? seen.get().id()
                    : machineIn(h, runnerId, machine, now, false).id();
            return h.createUpdate("UPDATE job_attempt SET machine_id = :machine"
                                    + " WHERE lease = :lease AND job_id = (SELECT id FROM job WHERE uuid = :uuid)")
                            .bind("machine", id)
                            .bind("lease", lease.value())
                            .bind("uuid", job.toString())
                            .execute()
                    > 0;
        });
    }

    @Override
    public Map<Integer, KnownMachine> attemptMachines(long jobId) {
        return context.read(h -> {
            Map<Integer, KnownMachine> machines = new TreeMap<>();
            h.createQuery("SELECT a.number, " + MACHINE
                            + " FROM job_attempt a JOIN runner_machine m ON m.id = a.machine_id"
                            + " WHERE a.job_id = :job")
                    .bind("job", jobId)
                    .map((rs, c) -> Map.entry(rs.getInt("number"), machine(rs)))
                    .forEach(e -> machines.put(e.getKey(), e.getValue()));
            return machines;
        });
    }

    private static KnownMachine machine(ResultSet rs) throws SQLException {
        long pid = rs.getLong("pid");
        Long boxedPid = rs.wasNull() ? null : pid;
        RunnerHost host = new RunnerHost(
                rs.getString("os"),
                rs.getString("arch"),
                rs.getString("version"),
                rs.getString("host"),
                boxedPid,
                Rows.instant(rs, "agent_started"),
                rs.getString("address"));
        return new KnownMachine(rs.getLong("id"), rs.getLong("runner_id"), host, Rows.instant(rs, "seen"));
    }
}

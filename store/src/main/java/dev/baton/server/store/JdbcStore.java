package dev.baton.server.store;

import static dev.baton.server.store.Rows.micros;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.StatementExceptions;
import org.jdbi.v3.core.statement.Update;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's SQL, shared by both dialects: the schemas are column-for-column identical and the
 * statements use only syntax SQLite and PostgreSQL both accept. A dialect supplies how a write
 * transaction is entered, how a unique violation looks and, above all, how {@link #claim} is
 * made atomic (see {@link SqliteStore} and {@link PostgresStore}).
 */
abstract class JdbcStore implements Store {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcStore.class);
    private static final Set<AttemptOutcome> REQUEUE_OUTCOMES =
            Set.of(AttemptOutcome.DECLINED, AttemptOutcome.ACCEPT_TIMEOUT, AttemptOutcome.LOST_BEFORE_START);

    /** The concurrency limits of a pending job {@code j}: ≥200 none, 100–199 per organization, &lt;100 per source IP. */
    static final String TIER_LIMITS = "(j.priority >= 200"
            + " OR (j.priority >= 100 AND NOT EXISTS (SELECT 1 FROM job o WHERE o.organization_id = j.organization_id AND o.status IN (1, 2)))"
            + " OR (j.priority < 100 AND NOT EXISTS (SELECT 1 FROM job o WHERE o.source_ip = j.source_ip AND o.status IN (1, 2))))";

    /**
     * Pending jobs this runner may claim: its specs only (none if the runner is archived or
     * quarantined, except the canary jobs for it; nobody else's canary), not declined by it in the current round (see {@link #DECLINED_THIS_ROUND}),
     * none of whose required labels it lacks, past any retry backoff, within the tier limits. The limits read committed
     * in-flight rows; each dialect makes sure no concurrent claim slips between this read and the
     * update.
     *
     * @param jobTable the FROM item for the job table aliased {@code j}, where a dialect may pin
     *                 the pending index
     */
    static String candidates(String jobTable) {
        return "SELECT j.id, j.priority, j.organization_id, j.source_ip FROM " + jobTable
                + " WHERE j.status = 0"
                + " AND j.spec_id IN (SELECT rs.spec_id FROM runner_spec rs WHERE rs.runner_id = :runner)"
                + " AND EXISTS (SELECT 1 FROM runner r WHERE r.id = :runner AND r.archived IS NULL AND (r.quarantined IS NULL OR j.canary_runner_id = :runner))"
                + " AND (j.canary_runner_id IS NULL OR j.canary_runner_id = :runner)"
                + " AND (j.not_before IS NULL OR j.not_before <= :now)"
                + " AND NOT EXISTS (SELECT 1 FROM job_attempt a WHERE a.job_id = j.id AND a.runner_id = :runner AND a.outcome = 3"
                + " AND " + DECLINED_THIS_ROUND + ")"
                + " AND NOT EXISTS (SELECT 1 FROM job_label jl WHERE jl.job_id = j.id AND jl.required = 1 AND NOT " + RUNNER_HAS_LABEL + ")"
                + " AND " + TIER_LIMITS;
    }

    /**
     * Whether runner {@code :runner} has label {@code jl} among its effective labels: set by the
     * admin, or reported by the runner with no admin label of that key hiding it.
     */
    static String runnerHasLabel(String runner) {
        return "EXISTS (SELECT 1 FROM runner_label rl WHERE rl.runner_id = " + runner + " AND rl.key = jl.key"
                + " AND rl.value = jl.value AND (rl.source = 'admin' OR NOT EXISTS (SELECT 1 FROM runner_label ra WHERE ra.runner_id = " + runner
                + " AND ra.key = jl.key AND ra.source = 'admin')))";
    }

    static final String RUNNER_HAS_LABEL = runnerHasLabel(":runner");

    /** Runner {@code rs.runner_id} has every label job {@code :job} requires. */
    private static final String SERVING_RUNNER_HAS_REQUIRED_LABELS = "NOT EXISTS (SELECT 1 FROM job_label jl WHERE jl.job_id = :job"
            + " AND jl.required = 1 AND NOT " + runnerHasLabel("rs.runner_id") + ")";

    /**
     * Whether decline {@code a} of job {@code j} still excludes its runner at {@code :now}: before
     * any decline back-off every decline does; during a back-off every decline does (all runners
     * of the spec had declined; a runner that never declined may still take the job); after it,
     * only declines since it ended (a new round: a decline may have been transient).
     */
    static final String DECLINED_THIS_ROUND =
            "(j.decline_backoff_until IS NULL OR j.decline_backoff_until > :now OR a.ended >= j.decline_backoff_until)";

    /** Dispatch order without a runner: priority, then oldest first. */
    static final String QUEUE_ORDER = " ORDER BY j.priority DESC, j.created ASC, j.id ASC";

    /**
     * Within a priority, jobs with more of their preferred labels on this runner first (a runner
     * that has them takes such a job before one that lacks them would); then oldest first.
     */
    static final String CLAIM_ORDER = " ORDER BY j.priority DESC, (SELECT COUNT(*) FROM job_label jl WHERE jl.job_id = j.id AND jl.required = 0 AND "
            + RUNNER_HAS_LABEL + ") DESC, j.created ASC, j.id ASC";

    protected final HikariDataSource pool;
    protected final Jdbi jdbi;
    /** Specs change rarely and are read on every hand-out; writes below invalidate it. */
    private final SpecCache specs = new SpecCache();
    /** Job heartbeats a liveness write skipped (rows held by other transactions), written with the next. */
    private final SkippedHeartbeats skippedHeartbeats = new SkippedHeartbeats();
    /** Told after every spec or runner-spec write ({@link #onSpecsChange}). */
    private final List<Runnable> specListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    /**
     * A project's uuid by its id, read on every hand-out, completion and processing (issue 13).
     * Both never change and no project row is ever deleted, so an id never comes to mean another
     * project and the entries need no invalidation, on any node. A project delete, if one is ever
     * added, must remove its entry.
     */
    private final Map<Long, ProjectUuid> projectUuids = new java.util.concurrent.ConcurrentHashMap<>();
    /** The adapter and results file of reports created lately, by id (result processing; see {@link ReportFormats}). */
    private final ReportFormats reportFormats = new ReportFormats(4096);
    private final AccessStore access = new JdbcAccessStore(this);
    private final OjsStore ojs = new JdbcOjsStore(this);
    private final AlertStore alerts = new JdbcAlertStore(this);
    /** Most transactions one commit carries, and how many may queue before writers block. */
    private static final int MAX_BATCH = 64;
    private static final int QUEUE_CAPACITY = 4096;
    private volatile GroupCommit groupCommit;
    /** Guarded by this: no committer is started after close. */
    private boolean closed;

    JdbcStore(HikariDataSource pool) {
        this.pool = pool;
        this.jdbi = Jdbi.create(pool);
        // Jdbi's default exception message lists bound arguments, among them leases and key
        // hashes; an exception may end up in a log, so it names the statement only.
        jdbi.getConfig(StatementExceptions.class).setMessageRendering(e -> {
            String sql = e.getStatementContext() == null ? null : e.getStatementContext().getRenderedSql();
            return e.getShortMessage() + (sql == null ? "" : " [statement: \"" + sql + "\"]");
        });
    }

    /**
     * Runs {@code work} in a write transaction and returns after its commit; concurrent writes
     * share one commit (group commit, {@link GroupCommit}). Each dialect's
     * {@link #transaction} enters the database transaction the batch runs in.
     */
    protected final <T> T write(HandleCallback<T, RuntimeException> work) {
        return writes().write(work);
    }

    /** Runs {@code work} in one database transaction, committed on return, rolled back on exception. */
    protected abstract <T> T transaction(HandleCallback<T, RuntimeException> work);

    /** Threads committing batches at once: 1 where the database has one writer. */
    protected abstract int committers();

    /** Started on the first write: a committer must not call into a dialect still being constructed. */
    private GroupCommit writes() {
        GroupCommit g = groupCommit;
        if (g != null) return g;
        synchronized (this) {
            if (closed) throw new IllegalStateException("the store is closed");
            if (groupCommit == null) {
                groupCommit = new GroupCommit(pool.getPoolName() + "-commit", this::transaction, committers(), MAX_BATCH, QUEUE_CAPACITY);
            }
            return groupCommit;
        }
    }

    /** True when the exception is the dialect's unique-constraint violation. */
    protected abstract boolean isUniqueViolation(SQLException e);

    @Override
    public AccessStore access() {
        return access;
    }

    @Override
    public OjsStore ojs() {
        return ojs;
    }

    @Override
    public AlertStore alerts() {
        return alerts;
    }

    protected final <T> T read(HandleCallback<T, RuntimeException> work) {
        return reading(() -> jdbi.withHandle(work));
    }

    /**
     * A read on a plain pooled connection, without a Jdbi handle: the hot path's reads
     * ({@link Sql}, issue 13). Autocommit, like a Jdbi handle outside a transaction.
     */
    protected final <T> T readPlain(Sql.Work<T> work) {
        return reading(() -> {
            try (java.sql.Connection c = pool.getConnection()) {
                return work.on(c);
            } catch (SQLException e) {
                throw new Sql.StatementFailed("cannot read: " + e.getMessage(), e);
            }
        });
    }

    /** Runs one read; a dialect may re-run it (PostgreSQL on a dead connection). */
    protected <T> T reading(java.util.function.Supplier<T> read) {
        return read.get();
    }

    // ---- organizations and projects -------------------------------------------------------

    @Override
    public Organization createOrganization(String name, Slug slug, PlanTier plan, Instant now) {
        return unique("organization slug '" + slug + "' is taken", () -> write(h -> {
            long id = h.createQuery("INSERT INTO organization (uuid, name, slug, plan, created, modified)"
                            + " VALUES (:uuid, :name, :slug, :plan, :now, :now) RETURNING id")
                    .bind("uuid", UUID.randomUUID().toString()).bind("name", name).bind("slug", slug.value())
                    .bind("plan", plan.priority()).bind("now", micros(now))
                    .mapTo(Long.class).one();
            return organization(h, id).orElseThrow();
        }));
    }

    @Override
    public Optional<Organization> findOrganization(ResourceId id) {
        return readPlain(c -> byResource(c, "organization", Rows.ORGANIZATION, id, Rows::organization));
    }

    @Override
    public Optional<Organization> findOrganization(long id) {
        return readPlain(c -> byId(c, "organization", Rows.ORGANIZATION, id, Rows::organization));
    }

    @Override
    public List<Organization> listOrganizations() {
        return read(h -> h.createQuery("SELECT " + Rows.ORGANIZATION + " FROM organization ORDER BY id").map(Rows.ORGANIZATION_MAPPER).list());
    }

    @Override
    public Organization setPlan(long organizationId, PlanTier plan, Instant now) {
        return write(h -> {
            int rows = h.createUpdate("UPDATE organization SET plan = :plan, modified = :now WHERE id = :id")
                    .bind("plan", plan.priority()).bind("now", micros(now)).bind("id", organizationId).execute();
            if (rows == 0) throw notFound("organization", organizationId);
            return organization(h, organizationId).orElseThrow();
        });
    }

    @Override
    public Project createProject(long organizationId, String name, Slug slug, Instant now) {
        return unique("project slug '" + slug + "' is taken", () -> write(h -> {
            if (organization(h, organizationId).isEmpty()) throw notFound("organization", organizationId);
            long id = h.createQuery("INSERT INTO project (uuid, organization_id, name, slug, created, modified)"
                            + " VALUES (:uuid, :org, :name, :slug, :now, :now) RETURNING id")
                    .bind("uuid", UUID.randomUUID().toString()).bind("org", organizationId).bind("name", name)
                    .bind("slug", slug.value()).bind("now", micros(now))
                    .mapTo(Long.class).one();
            return project(h, id).orElseThrow();
        }));
    }

    @Override
    public Optional<Project> findProject(ResourceId id) {
        return readPlain(c -> byResource(c, "project", Rows.PROJECT, id, Rows::project));
    }

    @Override
    public Optional<Project> findProject(long id) {
        return readPlain(c -> byId(c, "project", Rows.PROJECT, id, Rows::project));
    }

    @Override
    public Optional<ProjectUuid> projectUuid(long id) {
        ProjectUuid cached = projectUuids.get(id);
        if (cached != null) return Optional.of(cached);
        Optional<ProjectUuid> read = findProject(id).map(Project::uuid);
        read.ifPresent(uuid -> projectUuids.put(id, uuid));
        return read;
    }

    @Override
    public List<Project> listProjects() {
        return read(h -> h.createQuery("SELECT " + Rows.PROJECT + " FROM project ORDER BY id").map(Rows.PROJECT_MAPPER).list());
    }

    // ---- runners ---------------------------------------------------------------------------

    @Override
    public Runner createRunner(String name, Slug slug, String keyHash, Instant now) {
        Objects.requireNonNull(keyHash, "key hash");
        return unique("runner slug '" + slug + "' is taken", () -> write(h -> {
            long id = h.createQuery("INSERT INTO runner (uuid, name, slug, token_hash, created, modified)"
                            + " VALUES (:uuid, :name, :slug, :hash, :now, :now) RETURNING id")
                    .bind("uuid", UUID.randomUUID().toString()).bind("name", name).bind("slug", slug.value())
                    .bind("hash", keyHash).bind("now", micros(now))
                    .mapTo(Long.class).one();
            return runner(h, id).orElseThrow();
        }));
    }

    @Override
    public Optional<Runner> findRunner(ResourceId id) {
        return readPlain(c -> byResource(c, "runner", Rows.RUNNER, id, Rows::runner));
    }

    @Override
    public Optional<Runner> findRunner(long id) {
        return read(h -> runner(h, id));
    }

    @Override
    public List<Runner> listRunners(RunnerFilter filter) {
        StringBuilder sql = new StringBuilder("SELECT " + Rows.RUNNER + " FROM runner WHERE 1 = 1");
        if (!filter.archived()) sql.append(" AND archived IS NULL");
        if (filter.name() != null) sql.append(" AND name = :name");
        if (filter.search() != null) sql.append(" AND (LOWER(name) LIKE :search ESCAPE '!' OR slug LIKE :search ESCAPE '!')");
        sql.append(" ORDER BY created, id");
        return read(h -> {
            Query q = h.createQuery(sql.toString());
            if (filter.name() != null) q.bind("name", filter.name());
            if (filter.search() != null) q.bind("search", likePattern(filter.search()));
            return q.map(Rows.RUNNER_MAPPER).list();
        });
    }

    @Override
    public Runner updateRunner(long runnerId, String name, Slug slug, Boolean archived, Instant now) {
        return unique("runner slug '" + slug + "' is taken", () -> write(h -> {
            Update u = h.createUpdate("UPDATE runner SET modified = :now"
                    + (name != null ? ", name = :name" : "")
                    + (slug != null ? ", slug = :slug" : "")
                    + (archived == null ? "" : archived ? ", archived = COALESCE(archived, :now)" : ", archived = NULL")
                    + " WHERE id = :id");
            u.bind("now", micros(now)).bind("id", runnerId);
            if (name != null) u.bind("name", name);
            if (slug != null) u.bind("slug", slug.value());
            if (u.execute() == 0) throw notFound("runner", runnerId);
            return runner(h, runnerId).orElseThrow();
        }));
    }

    @Override
    public Runner rotateRunnerKey(long runnerId, String keyHash, Instant now) {
        Objects.requireNonNull(keyHash, "key hash");
        return write(h -> {
            int rows = h.createUpdate("UPDATE runner SET token_hash = :hash, modified = :now WHERE id = :id AND archived IS NULL")
                    .bind("hash", keyHash).bind("now", micros(now)).bind("id", runnerId).execute();
            if (rows == 0) {
                if (runner(h, runnerId).isEmpty()) throw notFound("runner", runnerId);
                throw new StoreException(StoreException.Reason.CONFLICT, "an archived runner's key cannot be rotated; restore the runner first");
            }
            return runner(h, runnerId).orElseThrow();
        });
    }

    @Override
    public Optional<Runner> authenticateRunner(ResourceId id, String keyHash) {
        if (keyHash == null) return Optional.empty();
        // One query by runner and hash together: a key only ever authenticates its own runner,
        // and a wrong runner or a wrong key look the same from outside.
        Optional<UUID> uuid = id.uuid();
        String where = uuid.isPresent() ? "uuid = :id" : "slug = :id";
        return read(h -> h.createQuery("SELECT " + Rows.RUNNER + " FROM runner WHERE " + where
                        + " AND token_hash = :hash AND archived IS NULL")
                .bind("id", uuid.map(UUID::toString).orElse(id.text())).bind("hash", keyHash)
                .map(Rows.RUNNER_MAPPER).findOne());
    }

    @Override
    public void recordRunnerHeartbeats(Map<Long, Instant> lastSeen) {
        if (lastSeen.isEmpty()) return;
        write(h -> latestTimes(h, "runner", "id", "", new TreeMap<>(lastSeen)));
    }

    @Override
    public Optional<Runner> quarantineIfFlaky(long runnerId, int threshold, java.time.Duration window, Instant now) {
        if (threshold < 1) throw new IllegalArgumentException("a quarantine threshold is at least 1");
        return write(h -> {
            long since = micros(now.minus(window));
            // Counted from the attempts themselves, so every node sharing the database counts the
            // same; failures before the last release do not count again.
            List<String> failures = h.createQuery("SELECT a.outcome, a.decline_code FROM job_attempt a JOIN runner r ON r.id = a.runner_id"
                            + " WHERE a.runner_id = :runner AND a.ended >= :since AND (r.quarantine_released IS NULL OR a.ended > r.quarantine_released)"
                            + " AND " + INFRASTRUCTURE_FAILURE + " ORDER BY a.ended DESC, a.id DESC")
                    .bind("runner", runnerId).bind("since", since)
                    .map((rs, ctx) -> {
                        String code = rs.getString("decline_code");
                        return code != null ? "declined " + code : AttemptOutcome.ofCode(rs.getInt("outcome")).name().toLowerCase(java.util.Locale.ROOT);
                    }).list();
            if (failures.size() < threshold) return Optional.<Runner>empty();
            String within = window.toString().substring(2).toLowerCase(java.util.Locale.ROOT); // PT1H -> 1h
            String reason = failures.size() + (failures.size() == 1 ? " infrastructure failure" : " infrastructure failures") + " within "
                    + within + " (threshold " + threshold + "; latest: " + failures.get(0) + ")";
            int rows = h.createUpdate("UPDATE runner SET quarantined = :now, quarantine_reason = :reason, modified = :now"
                            + " WHERE id = :id AND quarantined IS NULL")
                    .bind("now", micros(now)).bind("reason", reason).bind("id", runnerId).execute();
            return rows == 0 ? Optional.<Runner>empty() : runner(h, runnerId);
        });
    }

    /**
     * An attempt {@code a} that ended through the runner's machine rather than the job: lost
     * (before or after it started), never answered, or declined for a reason of the machine.
     * Not a job's own failure, and not the declines that say something about the job or the
     * spec (image refused, no command, image required, noisy machine) or about a runner that is
     * stopping. docs/scheduling.md lists them.
     */
    static final String INFRASTRUCTURE_FAILURE = "(a.outcome IN (" + AttemptOutcome.ACCEPT_TIMEOUT.code() + ", "
            + AttemptOutcome.LOST_BEFORE_START.code() + ", " + AttemptOutcome.LOST.code() + ") OR (a.outcome = "
            + AttemptOutcome.DECLINED.code() + " AND a.decline_code IN ('pull_failed', 'unpack_failed', 'executor_error', 'vm_boot_failed')))";

    @Override
    public Runner releaseRunner(long runnerId, Instant now) {
        return write(h -> {
            int rows = h.createUpdate("UPDATE runner SET quarantined = NULL, quarantine_reason = NULL, quarantine_released = :now, modified = :now"
                            + " WHERE id = :id")
                    .bind("now", micros(now)).bind("id", runnerId).execute();
            if (rows == 0) throw notFound("runner", runnerId);
            return runner(h, runnerId).orElseThrow();
        });
    }

    /** Rows of one latest-time statement: a node's heartbeats of 10,000 runners are 10 statements, not 10,000. */
    static final int LIVENESS_ROWS_PER_STATEMENT = 1000;

    /**
     * Sets {@code last_heartbeat} of each row keyed by {@code key} to its time (never backwards),
     * in one {@code UPDATE … FROM (VALUES …)} per {@value #LIVENESS_ROWS_PER_STATEMENT} rows. Both
     * dialects name a VALUES list's columns column1, column2 (SQLite has UPDATE … FROM since 3.33).
     */
    private static <K> int latestTimes(Handle h, String table, String key, String where, Map<K, Instant> times) {
        List<Map.Entry<K, Instant>> rows = new ArrayList<>(times.entrySet());
        int updated = 0;
        for (int from = 0; from < rows.size(); from += LIVENESS_ROWS_PER_STATEMENT) {
            List<Map.Entry<K, Instant>> chunk = rows.subList(from, Math.min(rows.size(), from + LIVENESS_ROWS_PER_STATEMENT));
            StringBuilder values = new StringBuilder();
            for (int i = 0; i < chunk.size(); i++) values.append(i == 0 ? "" : ", ").append("(:k").append(i).append(", :t").append(i).append(")");
            Sql u = Sql.once(h, "UPDATE " + table + " SET last_heartbeat = v.t"
                    + " FROM (SELECT column1 AS k, column2 AS t FROM (VALUES " + values + ") AS x) AS v"
                    + " WHERE " + table + "." + key + " = v.k" + where
                    + " AND (" + table + ".last_heartbeat IS NULL OR " + table + ".last_heartbeat < v.t)");
            for (int i = 0; i < chunk.size(); i++) {
                Object k = chunk.get(i).getKey();
                if (k instanceof Long id) u.bind("k" + i, id);
                else u.bind("k" + i, k.toString());
                u.bind("t" + i, micros(chunk.get(i).getValue()));
            }
            updated += u.execute();
        }
        return updated;
    }

    // ---- specs -----------------------------------------------------------------------------

    @Override
    public Spec createSpec(String name, Slug slug, Architecture architecture, int cpu, long memory, long disk, boolean network, Instant now) {
        return unique("spec slug '" + slug + "' is taken", () -> write(h -> {
            long id = h.createQuery("INSERT INTO spec (uuid, name, slug, architecture, cpu, memory, disk, network, created, modified)"
                            + " VALUES (:uuid, :name, :slug, :arch, :cpu, :memory, :disk, :network, :now, :now) RETURNING id")
                    .bind("uuid", UUID.randomUUID().toString()).bind("name", name).bind("slug", slug.value())
                    .bind("arch", architecture.wireName()).bind("cpu", cpu).bind("memory", memory).bind("disk", disk)
                    .bind("network", network).bind("now", micros(now))
                    .mapTo(Long.class).one();
            return spec(h, id).orElseThrow();
        }));
    }

    @Override
    public Optional<Spec> findSpec(ResourceId id) {
        return readPlain(c -> byResource(c, "spec", Rows.SPEC, id, Rows::spec));
    }

    @Override
    public Optional<Spec> findSpec(long id) {
        return specs.get(id, key -> readPlain(c -> byId(c, "spec", Rows.SPEC, key, Rows::spec)));
    }

    @Override
    public List<Spec> listSpecs(boolean archived) {
        return read(h -> h.createQuery("SELECT " + Rows.SPEC + " FROM spec" + (archived ? "" : " WHERE archived IS NULL") + " ORDER BY created, id")
                .map(Rows.SPEC_MAPPER).list());
    }

    @Override
    public Spec updateSpec(long specId, String name, Slug slug, Boolean archived, Instant now) {
        try {
            return updateSpecRow(specId, name, slug, archived, now);
        } finally {
            specsChanged();
        }
    }

    private Spec updateSpecRow(long specId, String name, Slug slug, Boolean archived, Instant now) {
        return unique("spec slug '" + slug + "' is taken", () -> write(h -> {
            Update u = h.createUpdate("UPDATE spec SET modified = :now"
                    + (name != null ? ", name = :name" : "")
                    + (slug != null ? ", slug = :slug" : "")
                    + (archived == null ? "" : archived ? ", archived = COALESCE(archived, :now)" : ", archived = NULL")
                    + " WHERE id = :id");
            u.bind("now", micros(now)).bind("id", specId);
            if (name != null) u.bind("name", name);
            if (slug != null) u.bind("slug", slug.value());
            if (u.execute() == 0) throw notFound("spec", specId);
            return spec(h, specId).orElseThrow();
        }));
    }

    @Override
    public Spec setSpecQueueTimeout(long specId, Integer queueTimeoutSeconds, Instant now) {
        try {
            return setSpecQueueTimeoutRow(specId, queueTimeoutSeconds, now);
        } finally {
            specsChanged();
        }
    }

    private Spec setSpecQueueTimeoutRow(long specId, Integer queueTimeoutSeconds, Instant now) {
        return write(h -> {
            int rows = h.createUpdate("UPDATE spec SET queue_timeout = :qt, modified = :now WHERE id = :id")
                    .bind("qt", queueTimeoutSeconds).bind("now", micros(now)).bind("id", specId).execute();
            if (rows == 0) throw notFound("spec", specId);
            return spec(h, specId).orElseThrow();
        });
    }

    @Override
    public Spec setSpecRequireCleanFingerprint(long specId, boolean required, Instant now) {
        try {
            return write(h -> {
                int rows = h.createUpdate("UPDATE spec SET require_clean_fingerprint = :required, modified = :now WHERE id = :id")
                        .bind("required", required).bind("now", micros(now)).bind("id", specId).execute();
                if (rows == 0) throw notFound("spec", specId);
                return spec(h, specId).orElseThrow();
            });
        } finally {
            specsChanged();
        }
    }

    @Override
    public void deleteSpec(long specId) {
        try {
            deleteSpecRow(specId);
        } finally {
            specsChanged();
        }
    }

    private void deleteSpecRow(long specId) {
        write(h -> {
            if (spec(h, specId).isEmpty()) throw notFound("spec", specId);
            long jobs = h.createQuery("SELECT COUNT(*) FROM job WHERE spec_id = :id").bind("id", specId).mapTo(Long.class).one();
            if (jobs > 0) {
                throw new StoreException(StoreException.Reason.IN_USE,
                        "spec is referenced by " + jobs + (jobs == 1 ? " job" : " jobs") + "; archive it instead");
            }
            // runner_spec restricts deleting a spec so that a job's spec cannot vanish by accident;
            // with no job referencing it, its runner associations go with it.
            h.createUpdate("DELETE FROM runner_spec WHERE spec_id = :id").bind("id", specId).execute();
            return h.createUpdate("DELETE FROM spec WHERE id = :id").bind("id", specId).execute();
        });
    }

    private static final String RUNNER_SPECS = "SELECT " + prefixed("s", Rows.SPEC) + " FROM spec s JOIN runner_spec rs ON rs.spec_id = s.id"
            + " WHERE rs.runner_id = :runner ORDER BY s.created, s.id";

    @Override
    public List<Spec> runnerSpecs(long runnerId) {
        return readPlain(c -> Sql.on(c, RUNNER_SPECS).bind("runner", runnerId).list(Rows::spec));
    }

    @Override
    public void addRunnerSpec(long runnerId, long specId) {
        try {
            addRunnerSpecRow(runnerId, specId);
        } finally {
            specsChanged();
        }
    }

    private void addRunnerSpecRow(long runnerId, long specId) {
        write(h -> {
            if (runner(h, runnerId).isEmpty()) throw notFound("runner", runnerId);
            if (spec(h, specId).isEmpty()) throw notFound("spec", specId);
            return h.createUpdate("INSERT INTO runner_spec (runner_id, spec_id) VALUES (:runner, :spec)"
                            + " ON CONFLICT (runner_id, spec_id) DO NOTHING")
                    .bind("runner", runnerId).bind("spec", specId).execute();
        });
    }

    @Override
    public boolean removeRunnerSpec(long runnerId, long specId) {
        try {
            return removeRunnerSpecRow(runnerId, specId);
        } finally {
            specsChanged();
        }
    }

    private boolean removeRunnerSpecRow(long runnerId, long specId) {
        return write(h -> h.createUpdate("DELETE FROM runner_spec WHERE runner_id = :runner AND spec_id = :spec")
                .bind("runner", runnerId).bind("spec", specId).execute()) > 0;
    }

    @Override
    public Runnable onSpecsChange(Runnable listener) {
        specListeners.add(listener);
        return () -> specListeners.remove(listener);
    }

    @Override
    public void specsChangedElsewhere() {
        specs.invalidate();
    }

    /** After a spec or runner-spec write (committed or failed: a spurious invalidation costs one read). */
    private void specsChanged() {
        specs.invalidate();
        for (Runnable listener : specListeners) {
            // Runs in a finally: a failing listener must not hide the write's own exception.
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.warn("a spec change listener failed", e);
            }
        }
    }

    // ---- runs: reports and jobs --------------------------------------------------------------

    @Override
    public Report createReport(NewReport report, Instant now) {
        return write(h -> insertReport(h, report, now));
    }

    @Override
    public CreatedRun createRun(NewReport report, NewJob job, long organizationId, Instant now) {
        Objects.requireNonNull(job.sourceIp(), "a job needs its submitter's source IP (the unclaimed tier is limited by it)");
        Objects.requireNonNull(job.config(), "a job needs its config");
        RetryPolicy retry = job.retry() == null ? RetryPolicy.NONE : job.retry();
        CreatedRun created = write(h -> {
            // One statement for the three existence checks and the job row returned by its INSERT:
            // this body runs on the committer, where every statement is paid by all writers (issue 13).
            var exists = Sql.on(h, "SELECT (SELECT COUNT(*) FROM organization WHERE id = :org) AS o, (SELECT COUNT(*) FROM spec WHERE id = :spec) AS s,"
                            + " (SELECT COUNT(*) FROM project WHERE id = :project) AS p")
                    .bind("org", organizationId).bind("spec", job.specId()).bind("project", report.projectId())
                    .one(rs -> new long[] {rs.getLong("o"), rs.getLong("s"), rs.getLong("p")});
            if (exists[0] == 0) throw notFound("organization", organizationId);
            if (exists[1] == 0) throw notFound("spec", job.specId());
            if (exists[2] == 0) throw notFound("project", report.projectId());
            Report stored = insertCheckedReport(h, report, now);
            long reportId = stored.id();
            Job inserted = Sql.on(h, "INSERT INTO job (uuid, report_id, project_id, organization_id, source_ip, spec_id, config, timeout,"
                            + " priority, status, max_attempts, backoff_seconds, retry_when_runner_lost, queue_timeout, canary_runner_id, created, modified)"
                            + " VALUES (:uuid, :report, :project, :org, :ip, :spec, :config, :timeout,"
                            + " :priority, 0, :maxAttempts, :backoff, :retryLost, :queueTimeout, :canary, :now, :now) RETURNING " + Rows.JOB)
                    .bind("uuid", UUID.randomUUID().toString()).bind("report", reportId).bind("project", report.projectId())
                    .bind("org", organizationId).bind("ip", job.sourceIp()).bind("spec", job.specId())
                    .bind("config", Rows.json(job.config())).bind("timeout", job.timeout()).bind("priority", job.priority())
                    .bind("maxAttempts", Math.max(1, retry.maxAttempts())).bind("backoff", Math.max(0, retry.backoffSeconds()))
                    .bind("retryLost", retry.retryWhenRunnerLost()).bind("queueTimeout", job.queueTimeout()).bind("canary", job.canaryRunnerId())
                    .bind("now", micros(now))
                    .one(Rows::job);
            long id = inserted.id();
            insertLabels(h, id, 1, job.labels().required());
            insertLabels(h, id, 0, job.labels().preferred());
            if (job.submitter() != null) {
                Sql.on(h, "INSERT INTO job_submitter (job_id, user_id, token_id) VALUES (:job, :user, :token)")
                        .bind("job", id).bind("user", job.submitter().userId()).bind("token", job.submitter().tokenId()).execute();
            }
            return new CreatedRun(stored, inserted);
        });
        reportFormats.put(created.report()); // after the commit: result processing needs it once per job
        return created;
    }

    private static void insertLabels(Handle h, long jobId, int required, Map<String, String> labels) {
        for (var e : labels.entrySet()) {
            Sql.on(h, "INSERT INTO job_label (job_id, required, key, value) VALUES (:job, :required, :key, :value)")
                    .bind("job", jobId).bind("required", required).bind("key", e.getKey()).bind("value", e.getValue()).execute();
        }
    }

    @Override
    public JobLabels jobLabels(long jobId) {
        return readPlain(c -> {
            Map<String, String> required = new java.util.TreeMap<>();
            Map<String, String> preferred = new java.util.TreeMap<>();
            Sql.on(c, "SELECT required, key, value FROM job_label WHERE job_id = :job").bind("job", jobId).list(rs ->
                    (rs.getInt("required") == 1 ? required : preferred).put(rs.getString("key"), rs.getString("value")));
            return new JobLabels(required, preferred);
        });
    }

    @Override
    public RunnerLabels runnerLabels(long runnerId) {
        return read(h -> {
            Map<String, String> admin = new java.util.TreeMap<>();
            Map<String, String> reported = new java.util.TreeMap<>();
            h.createQuery("SELECT source, key, value FROM runner_label WHERE runner_id = :runner").bind("runner", runnerId).mapToMap().forEach(row ->
                    ("admin".equals(row.get("source")) ? admin : reported).put((String) row.get("key"), (String) row.get("value")));
            return new RunnerLabels(admin, reported);
        });
    }

    @Override
    public void setRunnerLabels(long runnerId, boolean admin, Map<String, String> labels, Instant now) {
        String source = admin ? "admin" : "runner";
        write(h -> {
            if (runner(h, runnerId).isEmpty()) throw notFound("runner", runnerId);
            h.createUpdate("DELETE FROM runner_label WHERE runner_id = :runner AND source = :source").bind("runner", runnerId).bind("source", source)
                    .execute();
            for (var e : new java.util.TreeMap<>(labels).entrySet()) {
                h.createUpdate("INSERT INTO runner_label (runner_id, source, key, value) VALUES (:runner, :source, :key, :value)")
                        .bind("runner", runnerId).bind("source", source).bind("key", e.getKey()).bind("value", e.getValue()).execute();
            }
            if (admin) h.createUpdate("UPDATE runner SET modified = :now WHERE id = :id").bind("now", micros(now)).bind("id", runnerId).execute();
            return null;
        });
    }

    @Override
    public Optional<Report> findReport(long id) {
        return readPlain(c -> byId(c, "report", Rows.REPORT, id, Rows::report));
    }

    @Override
    public Optional<ReportFormat> reportFormat(long id) {
        ReportFormat known = reportFormats.get(id);
        if (known != null) return Optional.of(known);
        Optional<Report> report = findReport(id);
        report.ifPresent(reportFormats::put);
        return report.map(ReportFormat::of);
    }

    @Override
    public Optional<Report> findReport(ReportUuid uuid) {
        return readPlain(c -> Sql.on(c, "SELECT " + Rows.REPORT + " FROM report WHERE uuid = :uuid")
                .bind("uuid", uuid.toString()).findOne(Rows::report));
    }

    @Override
    public Optional<Job> findJob(JobUuid uuid) {
        return readPlain(c -> job(c, uuid));
    }

    @Override
    public Optional<Job> findJobOfReport(long reportId) {
        return read(h -> h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE report_id = :report ORDER BY id LIMIT 1")
                .bind("report", reportId).map(Rows.JOB_MAPPER).findOne());
    }

    @Override
    public List<Job> listJobs(long projectId, JobFilter filter) {
        StringBuilder sql = new StringBuilder("SELECT " + Rows.JOB + " FROM job WHERE project_id = :project");
        if (filter.status() != null) sql.append(" AND status = :status");
        if (filter.specId() != null) sql.append(" AND spec_id = :spec");
        if (filter.runnerId() != null) sql.append(" AND runner_id = :runner");
        sql.append(" ORDER BY created DESC, id DESC LIMIT :limit OFFSET :offset");
        return read(h -> {
            Query q = h.createQuery(sql.toString()).bind("project", projectId)
                    .bind("limit", Math.max(0, filter.limit())).bind("offset", Math.max(0, filter.offset()));
            if (filter.status() != null) q.bind("status", filter.status().code());
            if (filter.specId() != null) q.bind("spec", filter.specId());
            if (filter.runnerId() != null) q.bind("runner", filter.runnerId());
            return q.map(Rows.JOB_MAPPER).list();
        });
    }

    @Override
    public Optional<Attempt> findAttempt(long jobId, int number) {
        return read(h -> h.createQuery("SELECT " + Rows.ATTEMPT + " FROM job_attempt WHERE job_id = :job AND number = :number")
                .bind("job", jobId).bind("number", number).map(Rows.ATTEMPT_MAPPER).findOne());
    }

    @Override
    public List<Attempt> attempts(long jobId) {
        return read(h -> h.createQuery("SELECT " + Rows.ATTEMPT + " FROM job_attempt WHERE job_id = :job ORDER BY number")
                .bind("job", jobId).map(Rows.ATTEMPT_MAPPER).list());
    }

    @Override
    public boolean recordFingerprint(JobUuid job, LeaseId lease, String fingerprint) {
        Objects.requireNonNull(lease, "lease");
        return write(h -> Sql.on(h, "UPDATE job_attempt SET fingerprint = :fingerprint"
                        + " WHERE lease = :lease AND job_id = (SELECT id FROM job WHERE uuid = :uuid)")
                .bind("fingerprint", fingerprint).bind("lease", lease.value()).bind("uuid", job.toString()).execute() > 0);
    }

    // ---- dispatch and lifecycle (compare-and-set) -------------------------------------------

    @Override
    public final Optional<Job> claim(long runnerId, LeaseId lease, Instant now, Instant acceptUntil, ClaimFilter filter) {
        return write(h -> claimIn(h, runnerId, lease, now, acceptUntil, filter));
    }

    /**
     * One claim inside the caller's write transaction: the dialect picks the candidate and makes
     * the read-then-update atomic (see {@link SqliteStore} and {@link PostgresStore}); the order
     * of candidates, router preferences included, is {@link #CLAIM_ORDER} with {@link ClaimFilter#order}.
     */
    protected abstract Optional<Job> claimIn(Handle h, long runnerId, LeaseId lease, Instant now, Instant acceptUntil, ClaimFilter filter);

    @Override
    public List<List<Job>> claimEach(List<ClaimRequest> requests, Instant now, Instant acceptUntil) {
        if (requests.isEmpty()) return List.of();
        return write(h -> {
            Set<Set<Long>> exhausted = new HashSet<>();
            List<List<Job>> claimed = new ArrayList<>(requests.size());
            for (ClaimRequest r : requests) {
                List<Job> jobs = new ArrayList<>();
                while (jobs.size() < r.slots() && !exhausted.contains(r.specIds())) {
                    Optional<Job> job = claimIn(h, r.runnerId(), LeaseId.random(), now, acceptUntil, r.filter());
                    if (job.isEmpty()) {
                        if (emptyForEveryRunnerOf(h, r)) exhausted.add(r.specIds());
                        break;
                    }
                    jobs.add(job.get());
                }
                claimed.add(jobs);
            }
            return claimed;
        });
    }

    /**
     * Whether request {@code r}'s empty claim means that no other runner of its specs would find
     * a job either (in this transaction): not when the emptiness may be its own — its declines,
     * its archive or quarantine, labels a pending job requires, or another runner's canary.
     */
    private static boolean emptyForEveryRunnerOf(Handle h, ClaimRequest r) {
        if (r.declinedSome()) return false;
        if (r.specIds().isEmpty()) return true;
        boolean eligible = Sql.on(h, "SELECT 1 FROM runner WHERE id = :runner AND archived IS NULL AND quarantined IS NULL")
                .bind("runner", r.runnerId()).exists();
        if (!eligible) return false;
        // A pending job of the set that requires labels may be claimable by a runner that has them;
        // a canary job by its runner only (docs/scheduling.md, "Canary release").
        String ids = r.specIds().stream().map(String::valueOf).collect(Collectors.joining(", "));
        return !Sql.once(h, "SELECT 1 FROM job j WHERE j.status = 0 AND j.spec_id IN (" + ids + ")"
                        + " AND (j.canary_runner_id IS NOT NULL OR EXISTS (SELECT 1 FROM job_label jl WHERE jl.job_id = j.id AND jl.required = 1)) LIMIT 1")
                .exists();
    }

    /**
     * pending → claimed for a job the caller has made sure it may take, opening the attempt in the
     * same transaction and recording whether the runner held the job's image ({@code filter}).
     * Empty (nothing changed) when the job is no longer pending.
     */
    protected static Optional<Job> applyClaim(Handle h, long jobId, long runnerId, LeaseId lease, Instant now, Instant acceptUntil,
            ClaimFilter filter) {
        Optional<Job> job = Sql.on(h, "UPDATE job SET status = 1, runner_id = :runner, lease = :lease, attempt = attempt + 1,"
                        + " claimed = :now, started = NULL, completed = NULL, last_heartbeat = :now, error = NULL, modified = :now,"
                        + " accept_deadline = :acceptUntil, hard_deadline = NULL, lost_deadline = NULL, cancel_deadline = NULL"
                        + " WHERE id = :id AND status = 0 RETURNING " + Rows.JOB)
                .bind("runner", runnerId).bind("lease", lease.value()).bind("now", micros(now)).bind("id", jobId)
                .bind("acceptUntil", micros(acceptUntil))
                .findOne(Rows::job);
        job.ifPresent(j -> Sql.on(h, "INSERT INTO job_attempt (job_id, number, lease, runner_id, claimed, warm)"
                        + " VALUES (:job, :number, :lease, :runner, :now, :warm)")
                .bind("job", j.id()).bind("number", j.attempt()).bind("lease", lease.value()).bind("runner", runnerId)
                .bind("now", micros(now)).bind("warm", warmCode(filter.warm(j.config().digest()))).execute());
        return job;
    }

    /** job_attempt.warm: 1 warm, 0 cold, NULL unknown (an INTEGER in both dialects). */
    private static Integer warmCode(Boolean warm) {
        return warm == null ? null : warm ? 1 : 0;
    }

    @Override
    public Transition start(JobUuid job, LeaseId lease, Instant now, java.time.Duration grace) {
        Objects.requireNonNull(lease, "lease");
        return write(h -> {
            Optional<Job> started = cas(h, "status = 2, started = :now, last_heartbeat = :now,"
                            + " hard_deadline = :now + CAST(timeout AS BIGINT) * 1000000 + :grace",
                    "status = 1 AND lease = :lease", job, now,
                    q -> q.bind("lease", lease.value()).bind("grace", grace.toNanos() / 1000));
            if (started.isPresent()) {
                closeAttempt(h, started.get(), lease, "started = :now", now);
                return applied(started.get());
            }
            Transition t = classify(h, job, lease, Set.of(JobStatus.RUNNING));
            if (t.result() == Transition.Result.DUPLICATE) {
                // A resent `running` (reconnect) only refreshes liveness (seed 000).
                Sql.on(h, "UPDATE job SET last_heartbeat = :now WHERE id = :id AND (last_heartbeat IS NULL OR last_heartbeat < :now)")
                        .bind("now", micros(now)).bind("id", t.job().id()).execute();
                return new Transition(t.result(), job(h, job).orElseThrow());
            }
            return t;
        });
    }

    @Override
    public Transition requeue(JobUuid job, LeaseId lease, AttemptOutcome outcome, Decline decline, int maxRequeues,
            java.time.Duration declineBackoff, Instant now) {
        Objects.requireNonNull(lease, "lease");
        if (!REQUEUE_OUTCOMES.contains(outcome)) {
            throw new IllegalArgumentException("a requeue closes its attempt as declined, accept_timeout or lost_before_start, not " + outcome);
        }
        return write(h -> {
            Optional<Job> requeued = cas(h, "status = 0, runner_id = NULL, lease = NULL, claimed = NULL, last_heartbeat = NULL, requeues = requeues + 1",
                    "status = 1 AND lease = :lease AND requeues < :max", job, now,
                    q -> q.bind("lease", lease.value()).bind("max", maxRequeues));
            boolean exhausted = false;
            if (requeued.isEmpty()) {
                // Out of requeues: a job that never starts must still end (brief §5), so it fails
                // with a reason that says why, rather than circling the queue for ever.
                exhausted = true;
                String error = "the job went back to the queue " + (maxRequeues + 1) + " times without starting (last: "
                        + outcome.name().toLowerCase(java.util.Locale.ROOT) + "); max_requeues is " + maxRequeues;
                requeued = cas(h, "status = 4, requeues = requeues + 1, completed = :now, error = :error",
                        "status = 1 AND lease = :lease AND requeues >= :max", job, now,
                        q -> q.bind("lease", lease.value()).bind("max", maxRequeues).bind("error", error));
            }
            if (requeued.isPresent()) {
                Job after = requeued.get();
                closeAttempt(h, after, lease, outcome, now, false);
                if (outcome == AttemptOutcome.DECLINED) {
                    Decline said = decline != null ? decline : new Decline("other", null);
                    Sql.on(h, "UPDATE job_attempt SET decline_code = :code, decline_reason = :reason WHERE job_id = :job AND lease = :lease")
                            .bind("code", said.code()).bind("reason", said.reason()).bind("job", after.id()).bind("lease", lease.value())
                            .execute();
                    if (exhausted) {
                        after = failedByDeclines(h, after, maxRequeues, now);
                    } else if (declinedByEveryServingRunner(h, after, now)) {
                        long backoff = Math.max(1, micros(Instant.EPOCH.plus(declineBackoff)));
                        after = h.createQuery("UPDATE job SET decline_backoff_until = :until, modified = :now WHERE id = :id RETURNING " + Rows.JOB)
                                .bind("until", micros(now) + backoff).bind("now", micros(now)).bind("id", after.id())
                                .map(Rows.JOB_MAPPER).one();
                    }
                }
                return applied(after);
            }
            Optional<Attempt> previous = attemptByLease(h, job, lease);
            if (previous.isPresent() && previous.get().outcome() != null && REQUEUE_OUTCOMES.contains(previous.get().outcome())) {
                // The same requeue again (a resent decline): already done under this lease.
                return new Transition(Transition.Result.DUPLICATE, job(h, job).orElseThrow());
            }
            return classify(h, job, lease, Set.of());
        });
    }

    /**
     * True when every runner serving the job's spec (not archived, not quarantined, with the labels
     * it requires) has declined it since its last
     * back-off (a spec nobody serves is not "declined by every runner": it waits as no_runner).
     */
    private static boolean declinedByEveryServingRunner(Handle h, Job job, Instant now) {
        return h.createQuery("SELECT COUNT(*) FROM runner_spec rs JOIN runner r ON r.id = rs.runner_id AND r.archived IS NULL"
                        + " AND r.quarantined IS NULL JOIN job j ON j.id = :job"
                        + " WHERE rs.spec_id = :spec AND " + SERVING_RUNNER_HAS_REQUIRED_LABELS + " AND NOT EXISTS (SELECT 1 FROM job_attempt a WHERE a.job_id = j.id"
                        + " AND a.runner_id = rs.runner_id AND a.outcome = 3 AND " + DECLINED_THIS_ROUND + ")")
                .bind("spec", job.specId()).bind("job", job.id()).bind("now", micros(now))
                .mapTo(Long.class).one() == 0
                && h.createQuery("SELECT COUNT(*) FROM runner_spec rs JOIN runner r ON r.id = rs.runner_id AND r.archived IS NULL"
                        + " AND r.quarantined IS NULL WHERE rs.spec_id = :spec AND " + SERVING_RUNNER_HAS_REQUIRED_LABELS)
                .bind("spec", job.specId()).bind("job", job.id()).mapTo(Long.class).one() > 0;
    }

    /** The requeue-exhausted failure after a decline, rewritten to say what each runner said (error_code declined). */
    private static Job failedByDeclines(Handle h, Job job, int maxRequeues, Instant now) {
        List<String> said = new ArrayList<>();
        Set<Long> seen = new java.util.HashSet<>();
        for (var row : h.createQuery("SELECT r.slug, a.runner_id, a.decline_code, a.decline_reason FROM job_attempt a"
                        + " JOIN runner r ON r.id = a.runner_id WHERE a.job_id = :job AND a.outcome = 3 ORDER BY a.number DESC")
                .bind("job", job.id()).mapToMap().list()) {
            long runner = ((Number) row.get("runner_id")).longValue();
            if (!seen.add(runner)) continue; // each runner's last word
            Object reason = row.get("decline_reason");
            said.add(row.get("slug") + " (" + row.get("decline_code") + (reason == null ? "" : ": " + reason) + ")");
        }
        String error = "declined by the runners and max_requeues (" + maxRequeues + ") is spent: " + String.join("; ", said);
        return h.createQuery("UPDATE job SET error = :error, error_code = 'declined', modified = :now WHERE id = :id RETURNING " + Rows.JOB)
                .bind("error", error).bind("now", micros(now)).bind("id", job.id()).map(Rows.JOB_MAPPER).one();
    }

    @Override
    public Transition expireQueued(JobUuid job, String error, Instant now) {
        return write(h -> {
            Optional<Job> failed = cas(h, "status = 4, completed = :now, error = :error, error_code = 'queue_timeout'", "status = 0", job, now,
                    q -> q.bind("error", error));
            return failed.map(JdbcStore::applied).orElseGet(() -> classify(h, job, null, Set.of()));
        });
    }

    @Override
    public List<Job> pendingJobsWithQueueTimeout() {
        return read(h -> h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE status = 0 AND queue_timeout IS NOT NULL ORDER BY id")
                .map(Rows.JOB_MAPPER).list());
    }

    @Override
    public List<Job> pendingJobs() {
        return read(h -> h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE status = 0" + QUEUE_ORDER.replace("j.", ""))
                .map(Rows.JOB_MAPPER).list());
    }

    /**
     * Jobs in flight on the runners serving {@code :spec}, counted per serving runner (one
     * runner_spec row each) by a correlated count, so that each is a plain probe of
     * index_job_runner_in_flight with or without statistics. Plain index scans mark the entries
     * of dead rows as they pass; the former count (and a join, once statistics exist) ran as
     * bitmap scans over every in-flight entry, which never mark them, and read thousands of dead
     * entries on every submission under churn (ADR 0021).
     */
    static final String IN_FLIGHT_ON_SERVING_RUNNERS = "(SELECT COALESCE(SUM((SELECT COUNT(*) FROM job o WHERE o.runner_id = rs.runner_id"
            + " AND o.status IN (1, 2))), 0) FROM runner_spec rs WHERE rs.spec_id = :spec)";

    @Override
    public PendingFacts pendingFacts(Job job, int recentRuns, Instant freshSince) {
        // Runners at or after this heartbeat time (and not quarantined) are only counted; with no
        // time, none is (Long.MAX_VALUE: every serving runner is listed). The cutoff is rounded up
        // to the stored microsecond, so "at or after" means what Instant.isBefore means.
        long fresh = freshSince == null ? Long.MAX_VALUE : ceilMicros(freshSince);
        return readPlain(h -> {
            // Jobs compete when a runner of this job's spec could take them: the job's own spec and
            // every other spec those runners serve.
            String competing = "(o.spec_id = :spec OR o.spec_id IN (SELECT rs2.spec_id FROM runner_spec rs2 JOIN runner r2 ON r2.id = rs2.runner_id"
                    + " AND r2.archived IS NULL WHERE rs2.runner_id IN (SELECT rs.runner_id FROM runner_spec rs WHERE rs.spec_id = :spec)))";
            // Every count and the recent run times' sum in one statement (one round trip, one
            // snapshot): this read runs on every submission. The run times are summed here rather
            // than listed: the mean is all the estimate uses.
            long[] counts = Sql.on(h, "SELECT sv.serving, sv.fresh, rr.runs, rr.run_micros,"
                            + " (SELECT COUNT(*) FROM job o WHERE o.status = 0 AND " + competing
                            + " AND (o.priority > :priority OR (o.priority = :priority AND (o.created < :created OR (o.created = :created AND o.id < :id))))) AS ahead,"
                            + " " + IN_FLIGHT_ON_SERVING_RUNNERS + " AS in_flight,"
                            + " (SELECT COUNT(*) FROM job j WHERE j.id = :id AND NOT " + TIER_LIMITS + ") AS limited"
                            + " FROM (SELECT COUNT(*) AS serving,"
                            + " COALESCE(SUM(CASE WHEN r.quarantined IS NULL AND r.last_heartbeat >= :fresh THEN 1 ELSE 0 END), 0) AS fresh"
                            + " FROM runner r JOIN runner_spec rs ON rs.runner_id = r.id WHERE rs.spec_id = :spec AND r.archived IS NULL) sv,"
                            + " (SELECT COUNT(*) AS runs, COALESCE(SUM(d.completed - d.started), 0) AS run_micros FROM"
                            + " (SELECT started, completed FROM job WHERE spec_id = :spec AND status IN (3, 6) AND started IS NOT NULL"
                            + " ORDER BY completed DESC LIMIT :n) d) rr")
                    .bind("spec", job.specId()).bind("priority", job.priority()).bind("created", micros(job.created())).bind("id", job.id())
                    .bind("fresh", fresh).bind("n", recentRuns)
                    .one(rs -> new long[] {rs.getLong("serving"), rs.getLong("fresh"), rs.getLong("runs"), rs.getLong("run_micros"),
                            rs.getLong("ahead"), rs.getLong("in_flight"), rs.getLong("limited")});
            // The rest of the serving runners, by row, only when there are any: quarantined ones,
            // and ones whose heartbeat is older (they may still hold a channel to this node). A
            // runner that changed between the two statements may be counted in neither or both:
            // the answer is a snapshot for a person to read, and was never one transaction.
            List<ServingRunner> listed = counts[0] == counts[1] ? List.of() : Sql.on(h,
                            "SELECT r.id, r.slug, r.quarantined, r.last_heartbeat FROM runner r JOIN runner_spec rs ON rs.runner_id = r.id"
                            + " WHERE rs.spec_id = :spec AND r.archived IS NULL"
                            + " AND (r.quarantined IS NOT NULL OR r.last_heartbeat IS NULL OR r.last_heartbeat < :fresh) ORDER BY r.created, r.id")
                    .bind("spec", job.specId()).bind("fresh", fresh)
                    .list(rs -> new ServingRunner(rs.getLong("id"), new Slug(rs.getString("slug")), Rows.instant(rs, "quarantined") != null,
                            Rows.instant(rs, "last_heartbeat")));
            return new PendingFacts(listed, (int) counts[1], (int) counts[4], (int) counts[5], counts[6] > 0, (int) counts[2], counts[3]);
        });
    }

    /** Microseconds since the epoch, rounded up: a stored time {@code t} is {@code >=} the result exactly when it is not before {@code instant}. */
    private static long ceilMicros(Instant instant) {
        long micros = Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
        return instant.getNano() % 1000 == 0 ? micros : micros + 1;
    }

    @Override
    public Transition complete(JobUuid job, LeaseId lease, Instant now) {
        Objects.requireNonNull(lease, "lease");
        return write(h -> {
            // From failed too, but only under the same lease: the runner, not the heartbeat
            // timer, is the authority on the outcome (brief §1).
            Optional<Job> completed = cas(h, "status = 3, completed = :now, error = NULL", "status IN (1, 2, 4) AND lease = :lease", job, now,
                    q -> q.bind("lease", lease.value()));
            if (completed.isPresent()) {
                closeAttempt(h, completed.get(), lease, AttemptOutcome.COMPLETED, now, true);
                return applied(completed.get());
            }
            // Processed has passed through completed: a resent `completed` is a duplicate.
            return classify(h, job, lease, Set.of(JobStatus.COMPLETED, JobStatus.PROCESSED));
        });
    }

    @Override
    public Transition fail(JobUuid job, LeaseId lease, String error, AttemptOutcome outcome, Instant now) {
        Objects.requireNonNull(lease, "lease");
        AttemptOutcome closing = outcome == null ? AttemptOutcome.FAILED : outcome;
        if (closing == AttemptOutcome.COMPLETED || closing == AttemptOutcome.CANCELED) {
            throw new IllegalArgumentException("a failed attempt cannot end " + closing.name().toLowerCase(java.util.Locale.ROOT));
        }
        return write(h -> {
            Optional<Job> failed = cas(h, "status = 4, completed = :now, error = :error", "status IN (1, 2) AND lease = :lease", job, now,
                    q -> q.bind("lease", lease.value()).bind("error", error));
            if (failed.isEmpty()) return classify(h, job, lease, Set.of(JobStatus.FAILED));
            closeAttempt(h, failed.get(), lease, closing, now, false);
            // Opt-in retry (RETRY: failed → pending, a new attempt later under a new lease). Only
            // a job whose policy allows another attempt, and for a lost runner only if it says so.
            if (closing == AttemptOutcome.FAILED || closing == AttemptOutcome.LOST) {
                String lostClause = closing == AttemptOutcome.LOST ? " AND retry_when_runner_lost = TRUE" : "";
                Optional<Job> retried = cas(h, "status = 0, runner_id = NULL, lease = NULL, claimed = NULL, started = NULL,"
                                + " completed = NULL, last_heartbeat = NULL, not_before = :now + CAST(backoff_seconds AS BIGINT) * 1000000",
                        "status = 4 AND lease = :lease AND attempt < max_attempts" + lostClause, job, now,
                        q -> q.bind("lease", lease.value()));
                if (retried.isPresent()) return applied(retried.get());
            }
            return applied(failed.get());
        });
    }

    @Override
    public Transition cancel(JobUuid job, LeaseId lease, String reason, Instant now, Instant cancelDeadline) {
        // Only a job taken from a runner waits for that runner's answer (a pending one has none).
        String set = "cancel_deadline = CASE WHEN status IN (1, 2) THEN :cancelDeadline ELSE NULL END, status = 5, completed = :now, error = :reason";
        return write(h -> {
            Optional<Job> canceled = lease != null
                    ? cas(h, set, "status IN (1, 2) AND lease = :lease", job, now,
                            q -> q.bind("reason", reason).bind("lease", lease.value()).bind("cancelDeadline", micros(cancelDeadline)))
                    : cas(h, set, "status IN (0, 1, 2)", job, now,
                            q -> q.bind("reason", reason).bind("cancelDeadline", micros(cancelDeadline)));
            if (canceled.isEmpty()) return classify(h, job, lease, Set.of(JobStatus.CANCELED));
            // The open attempt (if the job was in flight) ends canceled with the job.
            Sql.on(h, "UPDATE job_attempt SET ended = :now, outcome = :outcome WHERE job_id = :job AND outcome IS NULL")
                    .bind("now", micros(now)).bind("outcome", AttemptOutcome.CANCELED.code()).bind("job", canceled.get().id()).execute();
            return applied(canceled.get());
        });
    }

    @Override
    public Transition process(JobUuid job, String results, Instant now) {
        return write(h -> {
            Optional<Job> processed = cas(h, "status = 6", "status = 3", job, now, q -> {});
            if (processed.isEmpty()) return classify(h, job, null, Set.of(JobStatus.PROCESSED));
            writeReport(h, processed.get(), results, null, now);
            return applied(processed.get());
        });
    }

    @Override
    public Transition recordAdapterError(JobUuid job, String results, String error, Instant now) {
        Objects.requireNonNull(error, "an adapter error needs its message");
        return write(h -> {
            // Compare-and-set on the job's status without changing it: only a completed job's
            // report takes an adapter error, and a concurrent processing wins (DUPLICATE).
            Optional<Job> completed = cas(h, "status = 3", "status = 3", job, now, q -> {});
            if (completed.isEmpty()) return classify(h, job, null, Set.of(JobStatus.PROCESSED));
            writeReport(h, completed.get(), results, error, now);
            return applied(completed.get());
        });
    }

    /** The report's results and error, and its placeholder times replaced by the job's real ones (seed 001). */
    private static void writeReport(Handle h, Job done, String results, String error, Instant now) {
        Instant start = done.started() != null ? done.started() : done.claimed();
        Sql.on(h, "UPDATE report SET results = :results, error = :error, modified = :now,"
                        + " start_time = COALESCE(:start, start_time), end_time = COALESCE(:end, end_time) WHERE id = :id")
                .bind("results", results).bind("error", error).bind("now", micros(now))
                .bind("start", micros(start)).bind("end", micros(done.completed())).bind("id", done.reportId()).execute();
    }

    @Override
    public void recordJobHeartbeats(Map<JobUuid, Instant> lastSeen) {
        Map<JobUuid, Instant> due = skippedHeartbeats.takeWith(lastSeen);
        if (due.isEmpty()) return;
        skippedHeartbeats.keep(due, write(h -> jobHeartbeats(h, due)));
    }

    /**
     * Sets {@code last_heartbeat} of each job still in flight to its time (never backwards);
     * returns the jobs left for the next write because another transaction held their rows. Here
     * none: SQLite has one writer. PostgreSQL skips rows other transactions hold.
     */
    protected Set<JobUuid> jobHeartbeats(Handle h, Map<JobUuid, Instant> times) {
        latestTimes(h, "job", "uuid", " AND job.status IN (1, 2)", times);
        return Set.of();
    }

    /** Heartbeat times of jobs whose rows a liveness write found held (PostgreSQL), for the next write. */
    int skippedHeartbeats() {
        return skippedHeartbeats.size();
    }

    @Override
    public int billMinutes(JobUuid job, int minute, Instant now) {
        return write(h -> {
            // Compare-and-set on the previous value: a minute is billed once however many
            // heartbeats (or server nodes) report it.
            while (true) {
                Optional<Integer> billed = h.createQuery("SELECT COALESCE(last_billed_minute, 0) FROM job WHERE uuid = :uuid")
                        .bind("uuid", job.toString()).mapTo(Integer.class).findOne();
                if (billed.isEmpty() || billed.get() >= minute) return 0;
                int rows = h.createUpdate("UPDATE job SET last_billed_minute = :minute, modified = :now"
                                + " WHERE uuid = :uuid AND COALESCE(last_billed_minute, 0) = :previous")
                        .bind("minute", minute).bind("now", micros(now)).bind("uuid", job.toString()).bind("previous", billed.get())
                        .execute();
                if (rows == 1) return minute - billed.get();
            }
        });
    }

    @Override
    public long billedMinutes(long organizationId) {
        return read(h -> h.createQuery("SELECT COALESCE(SUM(last_billed_minute), 0) FROM job WHERE organization_id = :org")
                .bind("org", organizationId).mapTo(Long.class).one());
    }

    @Override
    public List<Job> inFlightJobs() {
        return read(h -> h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE status IN (1, 2) ORDER BY id").map(Rows.JOB_MAPPER).list());
    }

    @Override
    public List<Job> completedUnprocessedJobs() {
        return read(h -> h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE status = 3"
                        + " AND NOT EXISTS (SELECT 1 FROM report r WHERE r.id = job.report_id AND r.error IS NOT NULL) ORDER BY id")
                .map(Rows.JOB_MAPPER).list());
    }


    @Override
    public Optional<dev.baton.protocol.value.ImageDigest> nextImage(long runnerId, Instant now, ClaimFilter filter) {
        // The claim's own candidates and order, so the answer is the job the claim would take.
        String head = candidates("job j") + filter.condition() + filter.order(CLAIM_ORDER) + " LIMIT 1";
        return read(h -> h.createQuery("SELECT n.config FROM job n JOIN (" + head + ") c ON c.id = n.id")
                .bind("runner", runnerId).bind("now", micros(now))
                .mapTo(String.class).findOne()
                .map(config -> Rows.config(config).digest()));
    }

    @Override
    public boolean hasPendingFor(Collection<Long> specIds) {
        if (specIds.isEmpty()) return false;
        String ids = specIds.stream().map(String::valueOf).collect(Collectors.joining(", "));
        return readPlain(c -> Sql.once(c, "SELECT 1 FROM job WHERE status = 0 AND spec_id IN (" + ids + ") LIMIT 1").exists());
    }

    // ---- cluster: durable deadlines and nodes ----------------------------------------------------

    /** How a dialect locks the rows a sweep acts on: SKIP LOCKED on PostgreSQL, nothing on SQLite (one writer). */
    protected abstract String sweepLock();

    @Override
    public boolean extendAcceptance(JobUuid job, LeaseId lease, Instant until) {
        return write(h -> h.createUpdate("UPDATE job SET accept_deadline = :until WHERE uuid = :uuid AND lease = :lease AND status = 1"
                        + " AND (accept_deadline IS NULL OR accept_deadline < :until)")
                .bind("until", micros(until)).bind("uuid", job.toString()).bind("lease", lease.value()).execute() > 0
                || h.createQuery("SELECT 1 FROM job WHERE uuid = :uuid AND lease = :lease AND status = 1")
                        .bind("uuid", job.toString()).bind("lease", lease.value()).mapTo(Integer.class).findOne().isPresent());
    }

    @Override
    public void clearCancelDeadline(JobUuid job, LeaseId lease) {
        write(h -> h.createUpdate("UPDATE job SET cancel_deadline = NULL WHERE uuid = :uuid AND lease = :lease AND cancel_deadline IS NOT NULL")
                .bind("uuid", job.toString()).bind("lease", lease.value()).execute());
    }

    @Override
    public <R> List<R> sweepDue(Deadline deadline, Instant now, int limit, java.util.function.Function<Job, R> act) {
        // A read first: nothing is due on most sweeps, and a write transaction would hold SQLite's one writer.
        if (read(h -> h.createQuery("SELECT 1 FROM job WHERE " + deadline.due + " LIMIT 1").bind("now", micros(now))
                .mapTo(Integer.class).findOne()).isEmpty()) {
            return List.of();
        }
        return write(h -> {
            List<Job> due = h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE " + deadline.due
                            + " ORDER BY " + deadline.order + ", id LIMIT :limit" + sweepLock())
                    .bind("now", micros(now)).bind("limit", limit).map(Rows.JOB_MAPPER).list();
            List<R> results = new ArrayList<>(due.size());
            for (Job job : due) {
                // Whatever the act decides, this deadline is spent: it is never swept twice.
                if (deadline == Deadline.CANCEL) {
                    h.createUpdate("UPDATE job SET cancel_deadline = NULL WHERE id = :id").bind("id", job.id()).execute();
                } else if (deadline == Deadline.LOST) {
                    h.createUpdate("UPDATE job SET lost_deadline = NULL WHERE id = :id").bind("id", job.id()).execute();
                }
                results.add(act.apply(job));
            }
            return results;
        });
    }

    @Override
    public Optional<Job> reattach(JobUuid job, LeaseId lease) {
        return write(h -> {
            h.createUpdate("UPDATE job SET lost_deadline = NULL WHERE uuid = :uuid AND lease = :lease AND status IN (1, 2)"
                            + " AND lost_deadline IS NOT NULL")
                    .bind("uuid", job.toString()).bind("lease", lease.value()).execute();
            return job(h, job).filter(j -> j.holds(lease) && j.status().inFlight());
        });
    }

    @Override
    public void attachRunner(long runnerId, String node) {
        write(h -> h.createUpdate("UPDATE runner SET node_id = :node WHERE id = :id").bind("node", node).bind("id", runnerId).execute());
    }

    @Override
    public void detachRunner(long runnerId, String node, Instant lostAt) {
        write(h -> {
            int detached = h.createUpdate("UPDATE runner SET node_id = NULL WHERE id = :id AND node_id = :node")
                    .bind("id", runnerId).bind("node", node).execute();
            // Attached to another node meanwhile (it reconnected there first): that node watches it.
            if (detached == 0 && runnerNode(h, runnerId).isPresent()) return 0;
            return h.createUpdate("UPDATE job SET lost_deadline = COALESCE(lost_deadline, :at) WHERE runner_id = :id AND status IN (1, 2)")
                    .bind("at", micros(lostAt)).bind("id", runnerId).execute();
        });
    }

    @Override
    public void markRunnerLost(long runnerId, Instant at) {
        write(h -> h.createUpdate("UPDATE job SET lost_deadline = :at WHERE runner_id = :id AND status IN (1, 2)"
                        + " AND (lost_deadline IS NULL OR lost_deadline > :at)")
                .bind("at", micros(at)).bind("id", runnerId).execute());
    }

    @Override
    public Optional<String> runnerNode(long runnerId) {
        return read(h -> runnerNode(h, runnerId));
    }

    @Override
    public List<Long> runnersOn(String node) {
        return read(h -> h.createQuery("SELECT id FROM runner WHERE node_id = :node ORDER BY id").bind("node", node).mapTo(Long.class).list());
    }

    private static Optional<String> runnerNode(Handle h, long runnerId) {
        return h.createQuery("SELECT node_id FROM runner WHERE id = :id AND node_id IS NOT NULL").bind("id", runnerId)
                .mapTo(String.class).findOne();
    }

    @Override
    public void registerNode(String node, Instant now, Instant lostAt, Instant aliveSince) {
        write(h -> {
            boolean crashed = h.createQuery("SELECT 1 FROM node WHERE id = :id AND stopped IS NULL").bind("id", node)
                    .mapTo(Integer.class).findOne().isPresent();
            // A previous run of this id that did not stop cleanly: nobody watches its runners now.
            if (crashed) detachNode(h, node, lostAt);
            boolean othersAlive = h.createQuery("SELECT 1 FROM node WHERE id <> :id AND stopped IS NULL AND last_heartbeat >= :since LIMIT 1")
                    .bind("id", node).bind("since", micros(aliveSince)).mapTo(Integer.class).findOne().isPresent();
            if (!othersAlive) {
                // The cluster was down (a single node restarting, say): deadlines that ran out while no
                // node could hear a runner would fail its jobs before it can reconnect.
                for (String dead : h.createQuery("SELECT id FROM node WHERE id <> :id AND stopped IS NULL").bind("id", node)
                        .mapTo(String.class).list()) {
                    detachNode(h, dead, lostAt);
                    h.createUpdate("UPDATE node SET stopped = :now WHERE id = :id").bind("now", micros(now)).bind("id", dead).execute();
                }
                h.createUpdate("UPDATE job SET lost_deadline = :at WHERE status IN (1, 2) AND lost_deadline < :at")
                        .bind("at", micros(lostAt)).execute();
            }
            return h.createUpdate("INSERT INTO node (id, started, last_heartbeat, stopped) VALUES (:id, :now, :now, NULL)"
                            + " ON CONFLICT (id) DO UPDATE SET started = excluded.started, last_heartbeat = excluded.last_heartbeat, stopped = NULL")
                    .bind("id", node).bind("now", micros(now)).execute();
        });
    }

    @Override
    public boolean recordLiveness(String node, Instant now, Map<JobUuid, Instant> jobs, Map<Long, Instant> runners) {
        Map<JobUuid, Instant> due = skippedHeartbeats.takeWith(jobs);
        record Written(boolean alive, Set<JobUuid> skipped) {}
        Written written = write(h -> {
            int alive = h.createUpdate("UPDATE node SET last_heartbeat = CASE WHEN last_heartbeat < :now THEN :now ELSE last_heartbeat END"
                            + " WHERE id = :id AND stopped IS NULL")
                    .bind("now", micros(now)).bind("id", node).execute();
            Set<JobUuid> skipped = due.isEmpty() ? Set.of() : jobHeartbeats(h, due);
            if (!runners.isEmpty()) latestTimes(h, "runner", "id", "", new TreeMap<>(runners));
            return new Written(alive > 0, skipped);
        });
        skippedHeartbeats.keep(due, written.skipped());
        return written.alive();
    }

    @Override
    public void stopNode(String node, Instant now, Instant lostAt) {
        write(h -> {
            detachNode(h, node, lostAt);
            return h.createUpdate("UPDATE node SET stopped = :now WHERE id = :id").bind("now", micros(now)).bind("id", node).execute();
        });
    }

    @Override
    public List<String> expireNodes(String self, Instant staleBefore, Instant now, java.time.Duration heartbeatTimeout) {
        String due = "SELECT id, last_heartbeat FROM node WHERE stopped IS NULL AND id <> :self AND last_heartbeat < :before";
        // A read first: the sweep runs every second on every node, and nodes are seldom dead.
        if (read(h -> h.createQuery(due + " LIMIT 1").bind("self", self).bind("before", micros(staleBefore)).mapToMap().findOne()).isEmpty()) {
            return List.of();
        }
        return write(h -> {
            List<Map.Entry<String, Long>> dead = h.createQuery(due + " ORDER BY id" + sweepLock())
                    .bind("self", self).bind("before", micros(staleBefore))
                    .map((rs, ctx) -> Map.entry(rs.getString("id"), rs.getLong("last_heartbeat"))).list();
            List<String> ids = new ArrayList<>();
            for (var d : dead) {
                long lostAt = Math.max(micros(now), d.getValue() + heartbeatTimeout.toNanos() / 1000);
                detachNode(h, d.getKey(), Instant.EPOCH.plus(lostAt, java.time.temporal.ChronoUnit.MICROS));
                h.createUpdate("UPDATE node SET stopped = :now WHERE id = :id").bind("now", micros(now)).bind("id", d.getKey()).execute();
                ids.add(d.getKey());
            }
            return ids;
        });
    }

    /** The node's runners are detached, their jobs in flight lost at {@code lostAt} unless they come back. */
    private static void detachNode(Handle h, String node, Instant lostAt) {
        h.createUpdate("UPDATE job SET lost_deadline = COALESCE(lost_deadline, :at) WHERE status IN (1, 2)"
                        + " AND runner_id IN (SELECT id FROM runner WHERE node_id = :node)")
                .bind("at", micros(lostAt)).bind("node", node).execute();
        h.createUpdate("UPDATE runner SET node_id = NULL WHERE node_id = :node").bind("node", node).execute();
    }

    @Override
    public List<Node> nodes() {
        return read(h -> h.createQuery("SELECT n.id, n.started, n.last_heartbeat, n.stopped, n.advertise_url,"
                        + " (SELECT COUNT(*) FROM runner r WHERE r.node_id = n.id) AS runners,"
                        + " (SELECT COUNT(*) FROM job j JOIN runner r ON r.id = j.runner_id WHERE r.node_id = n.id AND j.status IN (1, 2)) AS in_flight"
                        + " FROM node n ORDER BY n.id")
                .map((rs, ctx) -> new Node(rs.getString("id"), Rows.instant(rs, "started"), Rows.instant(rs, "last_heartbeat"),
                        Rows.instant(rs, "stopped"), rs.getInt("runners"), rs.getInt("in_flight"), rs.getString("advertise_url")))
                .list());
    }

    @Override
    public void advertiseNode(String node, String url) {
        write(h -> h.createUpdate("UPDATE node SET advertise_url = :url WHERE id = :id").bind("url", url).bind("id", node).execute());
    }

    @Override
    public Optional<String> liveNodeUrl(String node, Instant aliveSince) {
        return read(h -> h.createQuery("SELECT advertise_url FROM node WHERE id = :id AND stopped IS NULL AND last_heartbeat >= :since"
                        + " AND advertise_url IS NOT NULL")
                .bind("id", node).bind("since", micros(aliveSince)).mapTo(String.class).findOne());
    }

    @Override
    public ClusterCounts clusterCounts(String node, Instant aliveSince) {
        return read(h -> h.createQuery("SELECT"
                        + " (SELECT COUNT(*) FROM job WHERE status = 0) AS pending,"
                        + " (SELECT COUNT(*) FROM job WHERE status IN (1, 2)) AS in_flight,"
                        + " (SELECT COUNT(*) FROM node WHERE stopped IS NULL AND last_heartbeat >= :since) AS alive,"
                        + " (SELECT COUNT(*) FROM runner WHERE node_id = :node) AS node_runners,"
                        + " (SELECT COUNT(*) FROM job j JOIN runner r ON r.id = j.runner_id WHERE r.node_id = :node AND j.status IN (1, 2)) AS node_in_flight,"
                        + " (SELECT COUNT(*) FROM runner WHERE quarantined IS NOT NULL AND archived IS NULL) AS quarantined")
                .bind("since", micros(aliveSince)).bind("node", node)
                .map((rs, ctx) -> new ClusterCounts(rs.getLong("pending"), rs.getLong("in_flight"), rs.getLong("alive"),
                        rs.getLong("node_runners"), rs.getLong("node_in_flight"), rs.getLong("quarantined")))
                .one());
    }

    @Override
    public void close() {
        GroupCommit g;
        synchronized (this) {
            closed = true;
            g = groupCommit;
        }
        if (g != null) g.close();
        pool.close();
    }

    // ---- helpers ---------------------------------------------------------------------------

    // ---- schedules ---------------------------------------------------------------------------

    private static final String SCHEDULE = "uuid, name, cron, timezone, run, paused, next_fire, version, last_fired, last_report, last_error, created";

    private static Schedule schedule(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx) throws SQLException {
        return new Schedule(rs.getString("uuid"), rs.getString("name"), rs.getString("cron"), rs.getString("timezone"), rs.getString("run"),
                rs.getInt("paused") != 0, Rows.instant(rs, "next_fire"), rs.getLong("version"), Rows.instant(rs, "last_fired"),
                rs.getString("last_report"), rs.getString("last_error"), Rows.instant(rs, "created"));
    }

    @Override
    public Schedule createSchedule(Schedule s) {
        return unique("schedule name '" + s.name() + "' is taken", () -> write(h -> {
            h.createUpdate("INSERT INTO schedule (" + SCHEDULE + ") VALUES (:uuid, :name, :cron, :timezone, :run, :paused, :next, 0, :lastFired,"
                            + " :lastReport, :lastError, :created)")
                    .bind("uuid", s.uuid()).bind("name", s.name()).bind("cron", s.cron()).bind("timezone", s.timezone()).bind("run", s.run())
                    .bind("paused", s.paused() ? 1 : 0).bind("next", micros(s.nextFire())).bind("lastFired", micros(s.lastFired()))
                    .bind("lastReport", s.lastReport()).bind("lastError", s.lastError()).bind("created", micros(s.created())).execute();
            return s.withVersion(0);
        }));
    }

    @Override
    public List<Schedule> schedules() {
        return read(h -> h.createQuery("SELECT " + SCHEDULE + " FROM schedule ORDER BY name").map(JdbcStore::schedule).list());
    }

    @Override
    public Optional<Schedule> findSchedule(String uuid) {
        return read(h -> h.createQuery("SELECT " + SCHEDULE + " FROM schedule WHERE uuid = :uuid").bind("uuid", uuid)
                .map(JdbcStore::schedule).findOne());
    }

    @Override
    public List<Schedule> dueSchedules(Instant now) {
        return read(h -> h.createQuery("SELECT " + SCHEDULE + " FROM schedule WHERE paused = 0 AND next_fire <= :now ORDER BY next_fire")
                .bind("now", micros(now)).map(JdbcStore::schedule).list());
    }

    @Override
    public boolean updateSchedule(Schedule s) {
        return write(h -> h.createUpdate("UPDATE schedule SET cron = :cron, timezone = :timezone, run = :run, paused = :paused, next_fire = :next,"
                        + " last_fired = :lastFired, last_report = :lastReport, last_error = :lastError, version = version + 1"
                        + " WHERE uuid = :uuid AND version = :version")
                .bind("uuid", s.uuid()).bind("cron", s.cron()).bind("timezone", s.timezone()).bind("run", s.run())
                .bind("paused", s.paused() ? 1 : 0).bind("next", micros(s.nextFire())).bind("lastFired", micros(s.lastFired()))
                .bind("lastReport", s.lastReport()).bind("lastError", s.lastError()).bind("version", s.version()).execute() == 1);
    }

    @Override
    public boolean deleteSchedule(String uuid) {
        return write(h -> h.createUpdate("DELETE FROM schedule WHERE uuid = :uuid").bind("uuid", uuid).execute() == 1);
    }

    private static Transition applied(Job job) {
        return new Transition(Transition.Result.APPLIED, job);
    }

    /**
     * The compare-and-set itself: {@code UPDATE job SET <set>, modified WHERE uuid AND <expected>},
     * returning the row as changed, or empty when the expectation did not hold (zero rows).
     */
    private static Optional<Job> cas(Handle h, String set, String expected, JobUuid job, Instant now, java.util.function.Consumer<Sql> binds) {
        Sql q = Sql.on(h, "UPDATE job SET " + set + ", modified = :now WHERE uuid = :uuid AND " + expected + " RETURNING " + Rows.JOB)
                .bind("now", micros(now)).bind("uuid", job.toString());
        binds.accept(q);
        return q.findOne(Rows::job);
    }

    /**
     * Zero rows changed: re-read and say why. A lease that is not the job's current one is
     * STALE whatever the status; under the current lease a job already in one of
     * {@code duplicates} is a resend (DUPLICATE); anything else is a CONFLICT.
     */
    private static Transition classify(Handle h, JobUuid uuid, LeaseId lease, Set<JobStatus> duplicates) {
        Optional<Job> found = job(h, uuid);
        if (found.isEmpty()) return new Transition(Transition.Result.NOT_FOUND, null);
        Job job = found.get();
        if (lease != null && !job.holds(lease)) return new Transition(Transition.Result.STALE, job);
        if (duplicates.contains(job.status())) return new Transition(Transition.Result.DUPLICATE, job);
        return new Transition(Transition.Result.CONFLICT, job);
    }

    /** Sets {@code set} (e.g. the start time) on the attempt of {@code lease}. */
    private static void closeAttempt(Handle h, Job job, LeaseId lease, String set, Instant now) {
        Sql.on(h, "UPDATE job_attempt SET " + set + " WHERE job_id = :job AND lease = :lease")
                .bind("now", micros(now)).bind("job", job.id()).bind("lease", lease.value()).execute();
    }

    /** Ends the attempt of {@code lease}; {@code override} also rewrites an attempt already closed (completed after failed). */
    private static void closeAttempt(Handle h, Job job, LeaseId lease, AttemptOutcome outcome, Instant now, boolean override) {
        Sql.on(h, "UPDATE job_attempt SET ended = :now, outcome = :outcome WHERE job_id = :job AND lease = :lease"
                        + (override ? "" : " AND outcome IS NULL"))
                .bind("now", micros(now)).bind("outcome", outcome.code()).bind("job", job.id()).bind("lease", lease.value()).execute();
    }

    private static Optional<Attempt> attemptByLease(Handle h, JobUuid job, LeaseId lease) {
        return Sql.on(h, "SELECT " + Rows.ATTEMPT + " FROM job_attempt WHERE job_id = (SELECT id FROM job WHERE uuid = :uuid)"
                        + " AND lease = :lease")
                .bind("uuid", job.toString()).bind("lease", lease.value()).findOne(Rows::attempt);
    }

    private static Report insertReport(Handle h, NewReport report, Instant now) {
        if (!Sql.on(h, "SELECT 1 FROM project WHERE id = :id").bind("id", report.projectId()).exists()) {
            throw notFound("project", report.projectId());
        }
        return insertCheckedReport(h, report, now);
    }

    /** The report row, its project already known to exist in this transaction. */
    private static Report insertCheckedReport(Handle h, NewReport report, Instant now) {
        Instant start = report.startTime() != null ? report.startTime() : now;
        Instant end = report.endTime() != null ? report.endTime() : now;
        return Sql.on(h, "INSERT INTO report (uuid, project_id, branch, testbed, adapter, results_file, start_time, end_time, results,"
                        + " created, modified)"
                        + " VALUES (:uuid, :project, :branch, :testbed, :adapter, :resultsFile, :start, :end, :results, :now, :now) RETURNING " + Rows.REPORT)
                .bind("uuid", UUID.randomUUID().toString()).bind("project", report.projectId()).bind("branch", report.branch())
                .bind("testbed", report.testbed()).bind("adapter", report.adapter()).bind("resultsFile", report.resultsFile()).bind("start", micros(start))
                .bind("end", micros(end)).bind("results", report.results()).bind("now", micros(now))
                .one(Rows::report);
    }

    private static Optional<Job> job(Handle h, JobUuid uuid) {
        return job(h.getConnection(), uuid);
    }

    private static Optional<Job> job(java.sql.Connection c, JobUuid uuid) {
        return Sql.on(c, "SELECT " + Rows.JOB + " FROM job WHERE uuid = :uuid").bind("uuid", uuid.toString()).findOne(Rows::job);
    }

    private static Optional<Organization> organization(Handle h, long id) {
        return byId(h.getConnection(), "organization", Rows.ORGANIZATION, id, Rows::organization);
    }

    private static Optional<Project> project(Handle h, long id) {
        return byId(h.getConnection(), "project", Rows.PROJECT, id, Rows::project);
    }

    private static Optional<Runner> runner(Handle h, long id) {
        return byId(h.getConnection(), "runner", Rows.RUNNER, id, Rows::runner);
    }

    private static Optional<Spec> spec(Handle h, long id) {
        return byId(h.getConnection(), "spec", Rows.SPEC, id, Rows::spec);
    }

    private static <T> Optional<T> byId(java.sql.Connection c, String table, String columns, long id, Sql.Reader<T> reader) {
        return Sql.on(c, "SELECT " + columns + " FROM " + table + " WHERE id = :id").bind("id", id).findOne(reader);
    }

    /** UUID-shaped ids name the uuid column, anything else the slug (slugs are never UUID-shaped). */
    private static <T> Optional<T> byResource(java.sql.Connection c, String table, String columns, ResourceId id, Sql.Reader<T> reader) {
        Optional<UUID> uuid = id.uuid();
        return Sql.on(c, "SELECT " + columns + " FROM " + table + " WHERE " + (uuid.isPresent() ? "uuid" : "slug") + " = :id")
                .bind("id", uuid.map(UUID::toString).orElse(id.text())).findOne(reader);
    }

    private static String prefixed(String alias, String columns) {
        List<String> out = new ArrayList<>();
        for (String c : columns.split(",")) out.add(alias + "." + c.strip());
        return String.join(", ", out);
    }

    private static String likePattern(String search) {
        String escaped = search.toLowerCase(java.util.Locale.ROOT).replace("!", "!!").replace("%", "!%").replace("_", "!_");
        return "%" + escaped + "%";
    }

    private static StoreException notFound(String what, long id) {
        return new StoreException(StoreException.Reason.NOT_FOUND, what + " " + id + " does not exist");
    }

    /** Runs an insert/update and reports a unique violation as CONFLICT with {@code message}. */
    <T> T unique(String message, java.util.function.Supplier<T> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof SQLException sql && isUniqueViolation(sql)) {
                    throw new StoreException(StoreException.Reason.CONFLICT, message);
                }
            }
            throw e;
        }
    }

    // ---- Registry upload sessions ---------------------------------------------------------

    private static final String UPLOAD_COLUMNS = "id, project_uuid, repository, size, chunks, created, updated";

    private static RegistryUpload registryUpload(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
            throws SQLException {
        return new RegistryUpload(rs.getString("id"), rs.getString("project_uuid"), rs.getString("repository"), rs.getLong("size"),
                rs.getString("chunks"), Rows.instant(rs, "created"), Rows.instant(rs, "updated"));
    }

    @Override
    public void createRegistryUpload(RegistryUpload upload) {
        write(h -> h.createUpdate("INSERT INTO registry_upload (" + UPLOAD_COLUMNS + ")"
                        + " VALUES (:id, :project, :repository, :size, :chunks, :created, :updated)")
                .bind("id", upload.id()).bind("project", upload.projectUuid()).bind("repository", upload.repository())
                .bind("size", upload.size()).bind("chunks", upload.chunks())
                .bind("created", micros(upload.created())).bind("updated", micros(upload.updated()))
                .execute());
    }

    @Override
    public Optional<RegistryUpload> findRegistryUpload(String id) {
        return read(h -> h.createQuery("SELECT " + UPLOAD_COLUMNS + " FROM registry_upload WHERE id = :id")
                .bind("id", id).map(JdbcStore::registryUpload).findOne());
    }

    @Override
    public boolean advanceRegistryUpload(String id, long expectedSize, long size, String chunks, Instant now) {
        return write(h -> h.createUpdate("UPDATE registry_upload SET size = :size, chunks = :chunks, updated = :now"
                        + " WHERE id = :id AND size = :expected")
                .bind("size", size).bind("chunks", chunks).bind("now", micros(now)).bind("id", id).bind("expected", expectedSize)
                .execute() == 1);
    }

    @Override
    public boolean deleteRegistryUpload(String id, long expectedSize) {
        return write(h -> h.createUpdate("DELETE FROM registry_upload WHERE id = :id AND (:expected < 0 OR size = :expected)")
                .bind("id", id).bind("expected", expectedSize).execute() == 1);
    }

    @Override
    public List<RegistryUpload> idleRegistryUploads(Instant cutoff, int limit) {
        return read(h -> h.createQuery("SELECT " + UPLOAD_COLUMNS + " FROM registry_upload WHERE updated < :cutoff"
                        + " ORDER BY updated ASC LIMIT :limit")
                .bind("cutoff", micros(cutoff)).bind("limit", limit).map(JdbcStore::registryUpload).list());
    }

    @Override
    public long countRegistryUploads() {
        return read(h -> h.createQuery("SELECT COUNT(*) FROM registry_upload").mapTo(Long.class).one());
    }
}

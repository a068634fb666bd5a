package dev.baton.server.store;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongFunction;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementExceptions;

/**
 * The {@link Store} both dialects share: the schemas are column-for-column identical and the
 * statements use only syntax SQLite and PostgreSQL both accept. The SQL lives in one class per
 * aggregate ({@link JdbcOrganizations}, {@link JdbcRunners}, {@link JdbcSpecs}, {@link JdbcRuns},
 * {@link JdbcClaims}, {@link JdbcTransitions}, {@link JdbcJobLiveness}, {@link JdbcNodes},
 * {@link JdbcSchedules}, {@link JdbcRegistryUploads}, {@link JdbcAccessStore}, {@link JdbcOjsStore}, {@link JdbcLeaseOffers});
 * this class wires them to one {@link StoreContext} and hands each out as its part of the
 * {@link Store}. A dialect supplies how
 * a write transaction is entered, how a unique violation looks and, above all, how
 * {@link #claimIn a claim} is made atomic (see {@link SqliteStore} and {@link PostgresStore}).
 */
abstract class JdbcStore implements Store {
    protected final HikariDataSource pool;
    protected final Jdbi jdbi;
    /** What the aggregates share: transactions, statements, job rows. */
    final StoreContext context = new StoreContext(this);
    /** The store's statements, for the dialects' claims and heartbeats. */
    protected final Statements statements = context.statements;
    private final JdbcOrganizations organizations = new JdbcOrganizations(context);
    private final JdbcRunners runners = new JdbcRunners(context);
    private final JdbcSpecs specs = new JdbcSpecs(context);
    private final JdbcRuns runs = new JdbcRuns(context);
    private final JdbcClaims claims = new JdbcClaims(context);
    private final JdbcTransitions transitions = new JdbcTransitions(context);
    private final JdbcJobLiveness jobLiveness = new JdbcJobLiveness(context);
    private final JdbcNodes nodes = new JdbcNodes(context);
    private final JdbcSchedules schedules = new JdbcSchedules(context);
    private final JdbcRegistryUploads registryUploads = new JdbcRegistryUploads(context);
    private final AccessStore access = new JdbcAccessStore(this);
    private final OjsStore ojs = new JdbcOjsStore(this);
    private final LeaseOffers leaseOffers = new JdbcLeaseOffers(this);
    private final AlertStore alerts = new JdbcAlertStore(this);
    private final RunnerRolls rolls = new JdbcRunnerRolls(context);

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


    /** Runs {@code work} in one database transaction, committed on return, rolled back on exception. */
    protected abstract <T> T transaction(HandleCallback<T, RuntimeException> work);

    /** Threads committing batches at once: 1 where the database has one writer. */
    protected abstract int committers();

    /** True when the exception is the dialect's unique-constraint violation. */
    protected abstract boolean isUniqueViolation(SQLException e);

    /** Runs one read; a dialect may re-run it (PostgreSQL on a dead connection). */
    protected <T> T reading(java.util.function.Supplier<T> read) {
        return read.get();
    }

    /**
     * One claim inside the caller's write transaction: the dialect picks the candidate and makes
     * the read-then-update atomic (see {@link SqliteStore} and {@link PostgresStore}), handing each
     * candidate it may take to {@code take} (pending → claimed, empty when the job is no longer
     * pending: {@link JdbcClaims#applyClaim}, with the lease and deadline the dialect need not
     * know); the order of candidates, router preferences included, is
     * {@link ClaimSql#CLAIM_ORDER} with {@link ClaimFilter#order}, or {@link ClaimSql#plainClaim}
     * where that picks the same job ({@link #anyPendingPreferred}).
     */
    protected abstract Optional<Job> claimIn(Handle h, long runnerId, Instant now, ClaimFilter filter, LongFunction<Optional<Job>> take);

    /**
     * Whether a claim by this runner now must rank candidates by preferred labels
     * ({@link ClaimSql#CLAIM_ORDER}, which sorts every candidate): only when a pending job of its
     * specs has one. Otherwise {@link ClaimSql#plainClaim} picks the same job and stops early, so
     * a claim does not cost in proportion to the queue.
     */
    protected final boolean anyPendingPreferred(Handle h, long runnerId) {
        return statements.on(h, ClaimSql.ANY_PENDING_PREFERRED).bind("runner", runnerId).one(rs -> rs.getBoolean("any_preferred"));
    }

    /** pending → claimed for a job bound by a lease offer ({@link JdbcLeaseOffers}); see {@link JdbcClaims#applyClaim}. */
    final Optional<Job> applyClaim(Handle h, long jobId, long runnerId, LeaseId lease, Instant now, Instant acceptUntil,
            ClaimFilter filter) {
        return claims.applyClaim(h, jobId, runnerId, lease, now, acceptUntil, filter);
    }

    /** How a dialect locks the rows a sweep acts on: SKIP LOCKED on PostgreSQL, nothing on SQLite (one writer). */
    protected abstract String sweepLock();

    /** Whether the schema keeps pending jobs counted per spec and priority by triggers (the queue status reads them). */
    protected boolean keepsPendingCounts() {
        return false;
    }

    /**
     * Sets {@code last_heartbeat} of each job still in flight to its time (never backwards);
     * returns the jobs left for the next write because another transaction held their rows. Here
     * none: SQLite has one writer. PostgreSQL skips rows other transactions hold.
     */
    protected Set<JobUuid> jobHeartbeats(Handle h, Map<JobUuid, Instant> times) {
        context.latestTimes(h, "job", "uuid", " AND job.status IN (1, 2)", times);
        return Set.of();
    }


    /** A write transaction, committed with others (group commit, {@link StoreContext#write}). */
    protected final <T> T write(HandleCallback<T, RuntimeException> work) {
        return context.write(work);
    }

    protected final <T> T read(HandleCallback<T, RuntimeException> work) {
        return context.read(work);
    }

    /** Runs an insert/update and reports a unique violation as CONFLICT with {@code message}. */
    <T> T unique(String message, java.util.function.Supplier<T> work) {
        return context.unique(message, work);
    }

    /** Heartbeat times of jobs whose rows a liveness write found held (PostgreSQL), for the next write. */
    int skippedHeartbeats() {
        return context.skippedHeartbeats.size();
    }

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

    @Override
    public LeaseOffers leaseOffers() {
        return leaseOffers;
    }

    @Override
    public Claims claims() {
        return claims;
    }

    @Override
    public Transitions transitions() {
        return transitions;
    }

    @Override
    public JobLiveness liveness() {
        return jobLiveness;
    }

    @Override
    public Runs runs() {
        return runs;
    }

    @Override
    public Runners runners() {
        return runners;
    }

    @Override
    public RunnerRolls rolls() {
        return rolls;
    }

    @Override
    public Specs specs() {
        return specs;
    }

    @Override
    public Organizations organizations() {
        return organizations;
    }

    @Override
    public Nodes nodes() {
        return nodes;
    }

    @Override
    public RegistryUploads uploads() {
        return registryUploads;
    }

    @Override
    public Schedules schedules() {
        return schedules;
    }

    @Override
    public void close() {
        context.close();
        pool.close();
    }
}

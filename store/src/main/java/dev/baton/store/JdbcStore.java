package dev.baton.store;

import com.zaxxer.hikari.HikariDataSource;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementExceptions;

/**
 * The {@link Store} on either dialect: the schemas are column-for-column identical and the
 * statements use only syntax SQLite and PostgreSQL both accept. The SQL lives in one class per
 * part ({@link JdbcOrganizations}, {@link JdbcRunners}, {@link JdbcSpecs}, {@link JdbcRuns},
 * {@link JdbcClaims}, {@link JdbcTransitions}, {@link JdbcJobLiveness}, {@link JdbcNodes},
 * {@link JdbcSchedules}, {@link JdbcRegistryUploads}, {@link JdbcAccounts}, {@link JdbcOjsRecords},
 * {@link JdbcLeaseOffers}, {@link JdbcAlerts}); what differs between the databases is the
 * {@link SqlDialect} ({@link SqliteDialect}, {@link PostgresDialect}) handed to the parts that need
 * it. This class keeps what spans the parts: the pool, the write path they share
 * ({@link StoreContext}, group commit) and the lifecycle. {@link StoreFactory} migrates the schema
 * before it builds one.
 */
final class JdbcStore implements Store {
    final HikariDataSource pool;
    final Jdbi jdbi;
    final SqlDialect dialect;
    /** What the parts share: transactions, statements, job rows. */
    final StoreContext context;
    /** The store's statements (tests read them). */
    final Statements statements;

    private final JdbcOrganizations organizations;
    private final JdbcRunners runners;
    private final JdbcSpecs specs;
    private final JdbcRuns runs;
    private final JdbcClaims claims;
    private final JdbcTransitions transitions;
    private final JdbcJobLiveness jobLiveness;
    private final JdbcNodes nodes;
    private final JdbcSchedules schedules;
    private final JdbcRegistryUploads registryUploads;
    private final Accounts access;
    private final OjsRecords ojs;
    private final LeaseOffers leaseOffers;
    private final Alerts alerts;
    private final RunnerRolls rolls;
    private final Pools pools;
    private final RunnerNoise noise;

    JdbcStore(HikariDataSource pool, SqlDialect dialect) {
        this.pool = pool;
        this.jdbi = Jdbi.create(pool);
        this.dialect = dialect;
        // Jdbi's default exception message lists bound arguments, among them leases and key
        // hashes; an exception may end up in a log, so it names the statement only.
        jdbi.getConfig(StatementExceptions.class).setMessageRendering(e -> {
            String sql = e.getStatementContext() == null
                    ? null
                    : e.getStatementContext().getRenderedSql();
            return e.getShortMessage() + (sql == null ? "" : " [statement: \"" + sql + "\"]");
        });
        this.context = new StoreContext(pool, jdbi, dialect);
        this.statements = context.statements;
        this.organizations = new JdbcOrganizations(context);
        this.runners = new JdbcRunners(context);
        this.specs = new JdbcSpecs(context);
        this.claims = new JdbcClaims(context, dialect);
        this.runs = new JdbcRuns(context, dialect, claims);
        this.transitions = new JdbcTransitions(context, dialect);
        this.jobLiveness = new JdbcJobLiveness(context, dialect);
        this.nodes = new JdbcNodes(context, dialect);
        this.schedules = new JdbcSchedules(context);
        this.registryUploads = new JdbcRegistryUploads(context);
        this.access = new JdbcAccounts(context);
        this.ojs = new JdbcOjsRecords(context);
        this.leaseOffers = new JdbcLeaseOffers(context, dialect, claims);
        this.alerts = new JdbcAlerts(context);
        this.rolls = new JdbcRunnerRolls(context);
        this.pools = new JdbcPools(context);
        this.noise = new JdbcRunnerNoise(context);
    }

    /** Heartbeat times of jobs whose rows a liveness write found held (PostgreSQL), for the next write. */
    int skippedHeartbeats() {
        return context.skippedHeartbeats.size();
    }

    @Override
    public Accounts access() {
        return access;
    }

    @Override
    public OjsRecords ojs() {
        return ojs;
    }

    @Override
    public Alerts alerts() {
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
    public Pools pools() {
        return pools;
    }

    @Override
    public RunnerNoise noise() {
        return noise;
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

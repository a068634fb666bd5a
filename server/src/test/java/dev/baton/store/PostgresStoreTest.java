package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The store contract on a real PostgreSQL: {@code BATON_TEST_PG_URL} or 127.0.0.1:5432/test.
 * The class gets a schema of its own (created here, migrated by the store through
 * {@code currentSchema}, dropped after the class); each test starts from empty tables. Without
 * a reachable server the tests are skipped with a message saying so; with {@code CI=true} (CI
 * starts one) they fail instead.
 */
@Tag("postgres")
class PostgresStoreTest extends StoreContract {
    private static final String BASE =
            System.getenv().getOrDefault("BATON_TEST_PG_URL", "postgresql://127.0.0.1:5432/test");

    private static String adminUrl;
    private static String schema;
    private static boolean migrated;

    @BeforeAll
    static void createSchema() throws SQLException {
        adminUrl = reachableUrl();
        String unreachable = "PostgreSQL not reachable at " + DatabaseUrl.redact(BASE);
        // CI provides PostgreSQL (.ci/run starts it): there a missing database is a failure, not a skip.
        if (adminUrl == null && "true".equals(System.getenv("CI")))
            throw new IllegalStateException(unreachable + " although CI=true");
        assumeTrue(adminUrl != null, unreachable + ", skipping the PostgreSQL store contract");
        long createdAt = System.currentTimeMillis() / 1000;
        schema = "baton_test_" + createdAt + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement st = c.createStatement()) {
            dropAbandonedSchemas(c, createdAt);
            st.execute("CREATE SCHEMA " + schema);
        }
    }

    @AfterAll
    static void dropSchema() throws SQLException {
        if (schema == null) return;
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA " + schema + " CASCADE");
        }
        schema = null;
        migrated = false;
    }

    @Override
    protected Store openStore() throws SQLException {
        if (migrated) {
            // Every table the migrations made (read, not listed, so a new table cannot be missed).
            try (Connection c = DriverManager.getConnection(adminUrl + "&currentSchema=" + schema);
                    Statement st = c.createStatement()) {
                List<String> tables = new java.util.ArrayList<>();
                try (var rs = st.executeQuery("SELECT tablename FROM pg_tables WHERE schemaname = '" + schema + "'"
                        + " AND tablename <> 'flyway_schema_history'")) {
                    while (rs.next()) tables.add(rs.getString(1));
                }
                st.execute("TRUNCATE " + String.join(", ", tables) + " RESTART IDENTITY CASCADE");
            }
        }
        // The application name marks this class's connections, so a test can kill exactly those.
        Store store = StoreFactory.open(adminUrl + "&currentSchema=" + schema + "&ApplicationName=" + schema, null);
        migrated = true;
        return store;
    }

    /**
     * A run killed before its cleanup leaves its schema behind. A schema of this suite whose
     * migration ran more than an hour ago belongs to no running test class (one takes well under
     * a minute), so it is dropped here; the age comes from the name or, for names without a
     * timestamp, from Flyway's install time.
     */
    private static void dropAbandonedSchemas(Connection c, long nowSeconds) throws SQLException {
        List<String> candidates = new java.util.ArrayList<>();
        try (Statement st = c.createStatement();
                var rs =
                        st.executeQuery("SELECT nspname FROM pg_namespace WHERE nspname ~ '^baton_test_[0-9a-z_]+$'")) {
            while (rs.next()) candidates.add(rs.getString(1));
        }
        for (String name : candidates) {
            String[] parts = name.split("_");
            long created;
            if (parts.length == 4) {
                created = Long.parseLong(parts[2]);
            } else {
                try (Statement st = c.createStatement();
                        var rs = st.executeQuery("SELECT EXTRACT(EPOCH FROM MAX(installed_on)) FROM " + name
                                + ".flyway_schema_history")) {
                    if (!rs.next() || rs.getObject(1) == null) continue;
                    created = rs.getLong(1);
                } catch (SQLException e) {
                    continue; // no history table: not migrated yet, perhaps in use right now
                }
            }
            if (nowSeconds - created > 3600) {
                try (Statement st = c.createStatement()) {
                    st.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
                }
            }
        }
    }

    /**
     * A JDBC URL (with a user) that connects, or null. Trust-auth test databases differ in their
     * superuser's name, so without a user in the URL both usual ones are tried.
     */
    private static String reachableUrl() {
        DatabaseUrl parsed = DatabaseUrl.parse(BASE, null);
        String jdbc = parsed.jdbcUrl() + (parsed.jdbcUrl().contains("?") ? "&" : "?") + "connectTimeout=3";
        List<String> users =
                parsed.properties().containsKey("user") || parsed.jdbcUrl().contains("user=")
                        ? List.of("")
                        : List.of("postgres", "root");
        for (String user : users) {
            String url = jdbc;
            if (!user.isEmpty()) url += "&user=" + user;
            if (parsed.properties().containsKey("user"))
                url += "&user=" + parsed.properties().getProperty("user");
            if (parsed.properties().containsKey("password"))
                url += "&password=" + parsed.properties().getProperty("password");
            try (Connection c = DriverManager.getConnection(url)) {
                if (c.isValid(3)) return url;
            } catch (SQLException e) {
                // try the next user; none left means not reachable
            }
        }
        return null;
    }

    @Test
    void claimWalksThePendingIndexWhenFinishedJobsPileUp() {
        Instant now = Instant.parse("2026-03-01T00:00:00Z");
        Organization org = store.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, now);
        Project project = store.organizations().createProject(org.id(), "P", new Slug("p"), now);
        Spec spec = store.specs().createSpec("S", new Slug("s"), Architecture.X86_64, 1, 1, 1, false, now);
        Runner runner = store.runners()
                .createRunner("R", new Slug("r"), RunnerKey.generate().hash(), now);
        store.specs().addRunnerSpec(runner.id(), spec.id());
        Job template = store.runs()
                .createRun(
                        new NewReport(project.id(), "b", "t", "json", null, null, null),
                        new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                        org.id(),
                        now)
                .job();
        List<String> plan = ((JdbcStore) store).jdbi.withHandle(h -> {
            // 20,000 processed jobs of the same spec and a handful pending: the shape of a busy queue.
            h.execute(
                    "INSERT INTO job (uuid, report_id, project_id, organization_id, source_ip, spec_id, config, timeout, priority, status,"
                            + " created, modified) SELECT gen_random_uuid()::text, report_id, project_id, organization_id, source_ip, spec_id,"
                            + " config, timeout, priority, CASE WHEN g % 4000 = 0 THEN 0 ELSE 6 END, g, g"
                            + " FROM job, generate_series(1, 20000) g WHERE job.id = ?",
                    template.id());
            h.execute("ANALYZE job");
            return h.createQuery("EXPLAIN " + ClaimSql.candidates("job j") + ClaimSql.CLAIM_ORDER
                            + " LIMIT 1 FOR UPDATE OF j SKIP LOCKED")
                    .bind("runner", runner.id())
                    .bind("now", 0L)
                    .map((rs, ctx) -> rs.getString(1))
                    .list();
        });
        assertThat(String.join("\n", plan)).contains("index_job_pending").doesNotContain("Seq Scan on job j");
        assertThat(TestClaims.claim(store, runner.id(), LeaseId.random(), now)).isPresent();
    }

    /**
     * When another claim holds the first pending job, the claim takes the next one by walking the
     * pending index past held rows, not by sorting every candidate (8 ms a claim under a queue of
     * thousands, the largest share of PostgreSQL's cost per job before).
     */
    @Test
    void aClaimPassesAHeldFirstJobByWalkingThePendingIndex() throws SQLException {
        Instant now = Instant.parse("2026-03-01T00:00:00Z");
        Organization org = store.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, now);
        Project project = store.organizations().createProject(org.id(), "P", new Slug("p"), now);
        Spec spec = store.specs().createSpec("S", new Slug("s"), Architecture.X86_64, 1, 1, 1, false, now);
        Runner runner = store.runners()
                .createRunner("R", new Slug("r"), RunnerKey.generate().hash(), now);
        store.specs().addRunnerSpec(runner.id(), spec.id());
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jobs.add(store.runs()
                    .createRun(
                            new NewReport(project.id(), "b", "t", "json", null, null, null),
                            new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                            org.id(),
                            now.plusSeconds(i))
                    .job());
        }
        try (Connection holder = DriverManager.getConnection(adminUrl + "&currentSchema=" + schema);
                Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("SELECT id FROM job WHERE id = " + jobs.get(0).id() + " FOR UPDATE");
            assertThat(TestClaims.claim(store, runner.id(), LeaseId.random(), now.plusSeconds(5))
                            .orElseThrow()
                            .id())
                    .isEqualTo(jobs.get(1).id());
            holder.rollback();
        }
        assertThat(TestClaims.claim(store, runner.id(), LeaseId.random(), now.plusSeconds(6))
                        .orElseThrow()
                        .id())
                .as("freed again")
                .isEqualTo(jobs.get(0).id());

        String passingHeld = PostgresDialect.candidateQuery(true, true, ClaimFilter.NONE, "");
        List<String> plan = ((JdbcStore) store).jdbi.withHandle(h -> {
            // A queue of thousands, as when submitters outrun the runners.
            h.execute(
                    "INSERT INTO job (uuid, report_id, project_id, organization_id, source_ip, spec_id, config, timeout, priority, status,"
                            + " created, modified) SELECT gen_random_uuid()::text, report_id, project_id, organization_id, source_ip, spec_id,"
                            + " config, timeout, priority, 0, g, g FROM job, generate_series(1, 5000) g WHERE job.id = ?",
                    jobs.get(2).id());
            h.execute("ANALYZE job");
            return h.createQuery("EXPLAIN " + passingHeld)
                    .bind("runner", runner.id())
                    .bind("now", 0L)
                    .map((rs, ctx) -> rs.getString(1))
                    .list();
        });
        // Each spec's walk stops at its first free job; the jobs found are fetched by primary key
        // and only they are sorted, never the queue.
        assertThat(String.join("\n", plan))
                .contains("index_job_pending")
                .contains("Index Cond: (id = ANY (")
                .doesNotContain("Seq Scan on job");
        assertThat(plan)
                .filteredOn(line -> line.contains("Sort Key"))
                .as("no sort by preferred labels")
                .noneMatch(line -> line.contains("SubPlan"));
    }

    /**
     * What a database restart does to a pool: every server connection dies at once. The next
     * operations must still succeed (a failed transaction body was rolled back, so it is re-run
     * on a fresh connection) and must not apply anything twice.
     */
    @Test
    void operationsSurviveKilledConnections() throws SQLException {
        Instant now = Instant.parse("2026-03-01T00:00:00Z");
        Organization org = store.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, now);
        Project project = store.organizations().createProject(org.id(), "P", new Slug("p"), now);
        Spec spec = store.specs().createSpec("S", new Slug("s"), Architecture.X86_64, 1, 1, 1, false, now);
        Runner runner = store.runners()
                .createRunner("R", new Slug("r"), RunnerKey.generate().hash(), now);
        store.specs().addRunnerSpec(runner.id(), spec.id());
        for (int i = 0; i < 3; i++) {
            store.runs()
                    .createRun(
                            new NewReport(project.id(), "b", "t", "json", null, null, null),
                            new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                            org.id(),
                            now)
                    .job();
        }
        for (int round = 0; round < 3; round++) {
            killConnections();
            LeaseId lease = LeaseId.random();
            Job claimed = TestClaims.claim(store, runner.id(), lease, now).orElseThrow();
            killConnections();
            assertThat(store.transitions().start(claimed.uuid(), lease, now).result())
                    .isEqualTo(Transition.Result.APPLIED);
            killConnections();
            assertThat(store.runs().findJob(claimed.uuid()).orElseThrow().status())
                    .isEqualTo(dev.baton.protocol.job.JobStatus.RUNNING);
        }
        assertThat(store.liveness().inFlightJobs()).hasSize(3);
    }

    /**
     * HikariCP hands out a connection used within the last 500 ms without checking it. After a
     * restart with every pooled connection recently used, the retries of one operation used to
     * get dead connection after dead connection and give up (the store now evicts the pool's
     * connections at the first dead one). This is also why operationsSurviveKilledConnections
     * failed now and then in a full run: its pool was still being filled when it killed it.
     */
    @Test
    void aPoolWhoseConnectionsWereAllJustUsedAndKilledServesTheNextOperation() throws SQLException {
        var pool = ((JdbcStore) store).pool;
        List<Connection> all = new java.util.ArrayList<>();
        for (int i = 0; i < pool.getMaximumPoolSize(); i++) all.add(pool.getConnection());
        for (Connection c : all) c.close(); // back to the pool, each marked as used just now
        killConnections();
        Instant now = Instant.parse("2026-03-01T00:00:00Z");
        Organization org = store.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, now);
        assertThat(store.organizations().findOrganization(org.id())).isPresent();
    }

    /**
     * A liveness write used to wait for a job row another transaction held (another group-commit
     * batch keeps its rows until the whole batch commits), holding every row it had updated
     * meanwhile: transitions of those jobs queued behind it and deadlocked with it (ADR 0021).
     * Now it skips that row, writes the others, and writes the skipped time with the next flush.
     */
    @Test
    void jobLivenessSkipsARowAnotherTransactionHoldsAndWritesItWithTheNextFlush() throws Exception {
        Instant now = Instant.parse("2026-03-01T00:00:00Z");
        Organization org = store.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, now);
        Project project = store.organizations().createProject(org.id(), "P", new Slug("p"), now);
        Spec spec = store.specs().createSpec("S", new Slug("s"), Architecture.X86_64, 1, 1, 1, false, now);
        Runner runner = store.runners()
                .createRunner("R", new Slug("r"), RunnerKey.generate().hash(), now);
        store.specs().addRunnerSpec(runner.id(), spec.id());
        for (int i = 0; i < 2; i++) {
            store.runs()
                    .createRun(
                            new NewReport(project.id(), "b", "t", "json", null, null, null),
                            new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                            org.id(),
                            now);
        }
        Job held = TestClaims.claim(store, runner.id(), LeaseId.random(), now).orElseThrow();
        Job free = TestClaims.claim(store, runner.id(), LeaseId.random(), now).orElseThrow();
        Instant seen = now.plusSeconds(5);
        try (Connection holder = DriverManager.getConnection(adminUrl + "&currentSchema=" + schema);
                Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("UPDATE job SET modified = modified WHERE id = " + held.id());
            CompletableFuture<Void> flush = CompletableFuture.runAsync(
                    () -> store.liveness().recordJobHeartbeats(Map.of(held.uuid(), seen, free.uuid(), seen)));
            while (!flush.isDone()) {
                if (storeWaitsForALock()) {
                    holder.rollback(); // lets the write finish before the test fails
                    flush.join();
                    throw new AssertionError("the liveness write waited for a row another transaction holds");
                }
                Thread.sleep(5);
            }
            flush.join();
            holder.rollback();
        }
        assertThat(store.runs().findJob(free.uuid()).orElseThrow().lastHeartbeat())
                .isEqualTo(seen);
        assertThat(store.runs().findJob(held.uuid()).orElseThrow().lastHeartbeat())
                .as("skipped for now")
                .isEqualTo(now);
        assertThat(((JdbcStore) store).skippedHeartbeats()).isEqualTo(1);
        store.liveness().recordJobHeartbeats(Map.of());
        assertThat(store.runs().findJob(held.uuid()).orElseThrow().lastHeartbeat())
                .as("written with the next flush")
                .isEqualTo(seen);
        assertThat(((JdbcStore) store).skippedHeartbeats()).isZero();
        // A skipped job that finished before the next flush is dropped, not kept forever.
        store.transitions().complete(free.uuid(), free.lease(), seen);
        try (Connection holder = DriverManager.getConnection(adminUrl + "&currentSchema=" + schema);
                Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("UPDATE job SET modified = modified WHERE id = " + held.id());
            CompletableFuture.runAsync(
                            () -> store.liveness().recordJobHeartbeats(Map.of(held.uuid(), seen.plusSeconds(1))))
                    .join();
            holder.rollback();
        }
        assertThat(((JdbcStore) store).skippedHeartbeats()).isEqualTo(1);
        store.transitions().complete(held.uuid(), held.lease(), seen.plusSeconds(2));
        store.nodes().recordLiveness("node-a", seen.plusSeconds(3), Map.of(), Map.of());
        assertThat(((JdbcStore) store).skippedHeartbeats()).isZero();
        assertThat(store.runs().findJob(held.uuid()).orElseThrow().lastHeartbeat())
                .as("finished jobs are left alone")
                .isEqualTo(seen);
    }

    /** Whether a connection of this class's store is waiting for a lock. */
    private static boolean storeWaitsForALock() throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement st = c.createStatement();
                var rs = st.executeQuery("SELECT 1 FROM pg_stat_activity WHERE application_name = '" + schema
                        + "' AND wait_event_type = 'Lock'")) {
            return rs.next();
        }
    }

    /**
     * The in-flight count of every submission's queue status probes index_job_runner_in_flight
     * per serving runner with plain index scans (which mark the entries of dead rows), never a
     * bitmap scan (which never does), with statistics and, as in a fresh database's first minute
     * (the bench's lifecycle phase), without (ADR 0021).
     */
    @Test
    void inFlightCountProbesTheRunnerIndexPerServingRunner() {
        Instant now = Instant.parse("2026-03-01T00:00:00Z");
        Organization org = store.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, now);
        Project project = store.organizations().createProject(org.id(), "P", new Slug("p"), now);
        Spec spec = store.specs().createSpec("S", new Slug("s"), Architecture.X86_64, 1, 1, 1, false, now);
        for (int i = 0; i < 50; i++) {
            Runner r = store.runners()
                    .createRunner(
                            "R" + i, new Slug("r" + i), RunnerKey.generate().hash(), now);
            store.specs().addRunnerSpec(r.id(), spec.id());
        }
        Job template = store.runs()
                .createRun(
                        new NewReport(project.id(), "b", "t", "json", null, null, null),
                        new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                        org.id(),
                        now)
                .job();
        String explain = "EXPLAIN SELECT " + JdbcPendingFacts.IN_FLIGHT_ON_SERVING_RUNNERS;
        List<String> withoutStatistics = ((JdbcStore) store).jdbi.withHandle(h -> {
            // 20,000 finished jobs spread over the runners and one in flight on each: a busy spec.
            h.execute(
                    "INSERT INTO job (uuid, report_id, project_id, organization_id, source_ip, spec_id, config, timeout, priority, status,"
                            + " runner_id, created, modified) SELECT gen_random_uuid()::text, job.report_id, job.project_id, job.organization_id,"
                            + " job.source_ip, job.spec_id, job.config, job.timeout, job.priority, CASE WHEN g <= 50 THEN 2 ELSE 6 END,"
                            + " (SELECT MIN(id) FROM runner) + g % 50, g, g FROM job, generate_series(1, 20000) g WHERE job.id = ?",
                    template.id());
            return h.createQuery(explain)
                    .bind("spec", spec.id())
                    .map((rs, ctx) -> rs.getString(1))
                    .list();
        });
        List<String> withStatistics = ((JdbcStore) store).jdbi.withHandle(h -> {
            h.execute("ANALYZE job");
            h.execute("ANALYZE runner_spec");
            return h.createQuery(explain)
                    .bind("spec", spec.id())
                    .map((rs, ctx) -> rs.getString(1))
                    .list();
        });
        // Without statistics the former count ran a bitmap scan per runner (all its jobs ever AND
        // every in-flight entry); with them, one bitmap scan over every in-flight entry.
        for (List<String> plan : List.of(withoutStatistics, withStatistics)) {
            assertThat(String.join("\n", plan))
                    .contains("using index_job_runner_in_flight")
                    .doesNotContain("Bitmap Heap Scan on job")
                    .doesNotContain("Seq Scan on job");
        }
        assertThat(store.runs().pendingFacts(template, 20).inFlightOnServingRunners())
                .isEqualTo(50);
    }

    private static void killConnections() throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement st = c.createStatement();
                var rs = st.executeQuery(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '"
                                + schema + "'")) {
            assertThat(rs.next()).isTrue();
        }
    }
}

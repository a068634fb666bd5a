package dev.baton.bench;

import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Measurement 3b (issue 13): what the database itself can commit for one job's lifecycle, with no
 * Baton code on the path. Baton's schema (migrated by {@link StoreFactory}, so the same tables and
 * the spec-led pending index) on a fresh database, then plain JDBC through the same driver and
 * the same settings the store uses (SQLite: WAL, synchronous=NORMAL, BEGIN IMMEDIATE, writers
 * serialized in-process as {@link dev.baton.store.Store} does; PostgreSQL: the same URL,
 * {@code FOR UPDATE SKIP LOCKED} claims). Per job: insert; claim (select by the pending index,
 * update to claimed); running; completed; processed. Two modes: one transaction per step, and
 * {@value #BATCH} jobs per transaction for every step (what a group commit could reach).
 */
final class RawCeiling {
    static final int BATCH = 25;

    record Result(
            String mode,
            int jobsPerTransaction,
            int workers,
            int jobs,
            double seconds,
            double jobsPerSecond,
            ResourceUse resources) {}

    private RawCeiling() {}

    /** Raw workers: as many as the store ceiling's, at most 10 (more only adds lock waits on one file or 2 cores). */
    static int workers(int runners, int slots) {
        return Math.max(1, Math.min(10, runners * slots));
    }

    static List<Result> run(BenchDatabase database, Path dataDir, int runners, int slots, int jobs) throws Exception {
        String url = database.freshUrl();
        long projectId;
        long orgId;
        long specId;
        long runnerId;
        long reportId;
        try (Store store = StoreFactory.open(url, dataDir)) {
            Instant now = Instant.now();
            Organization org =
                    store.organizations().createOrganization("Raw", Slug.of("raw"), PlanTier.parse("team"), now);
            Project project = store.organizations().createProject(org.id(), "Raw", Slug.of("raw"), now);
            Spec spec = store.specs()
                    .createSpec("raw", Slug.of("raw"), Architecture.parse("x86_64"), 1, 1L << 30, 1L << 33, false, now);
            runnerId = store.runners()
                    .createRunner("raw", Slug.of("raw"), RunnerKey.generate().hash(), now)
                    .id();
            orgId = org.id();
            projectId = project.id();
            specId = spec.id();
        }
        String jdbcUrl;
        Properties props = new Properties();
        boolean sqlite = database.kind() == BenchDatabase.Kind.SQLITE;
        if (sqlite) {
            jdbcUrl = "jdbc:sqlite:" + dataDir.resolve("baton.db").toAbsolutePath();
            props.setProperty("journal_mode", "WAL");
            props.setProperty("synchronous", "NORMAL");
            props.setProperty("foreign_keys", "true");
            props.setProperty("busy_timeout", "10000");
            props.setProperty("transaction_mode", "IMMEDIATE");
        } else {
            jdbcUrl = "jdbc:" + url;
        }
        try (Connection c = DriverManager.getConnection(jdbcUrl, props)) {
            // One report row shared by every job: the raw path measures the job's own statements.
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO report (uuid, project_id, start_time, end_time, created, modified)"
                            + " VALUES (?, ?, 0, 0, 0, 0) RETURNING id")) {
                ps.setString(1, UUID.randomUUID().toString());
                ps.setLong(2, projectId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    reportId = rs.getLong(1);
                }
            }
        }
        Ids ids = new Ids(reportId, projectId, orgId, specId, runnerId);
        List<Result> results = new ArrayList<>();
        int w = workers(runners, slots);
        results.add(measure("one transaction per step", 1, w, jobs, jdbcUrl, props, sqlite, ids));
        results.add(measure(BATCH + " jobs per transaction", BATCH, w, jobs, jdbcUrl, props, sqlite, ids));
        return results;
    }

    private record Ids(long report, long project, long organization, long spec, long runner) {}

    private static Result measure(
            String mode, int batch, int workers, int jobs, String url, Properties props, boolean sqlite, Ids ids)
            throws Exception {
        // SQLite has one writer; waiting on an in-process lock beats its sleeping busy handler.
        ReentrantLock writer = sqlite ? new ReentrantLock(true) : null;
        String claimSelect =
                "SELECT id FROM job WHERE status = 0 AND spec_id = ? ORDER BY priority DESC, created ASC, id ASC LIMIT ?"
                        + (sqlite ? "" : " FOR UPDATE SKIP LOCKED");
        AtomicInteger next = new AtomicInteger();
        ResourceUse.Meter meter = ResourceUse.start();
        long t0 = System.nanoTime();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < workers; i++) {
                running.add(pool.submit(() -> {
                    try (Connection c = DriverManager.getConnection(url, props)) {
                        Statements s = new Statements(c, claimSelect);
                        while (true) {
                            int first = next.getAndAdd(batch);
                            if (first >= jobs) break;
                            int n = Math.min(batch, jobs - first);
                            inTransaction(c, writer, () -> {
                                for (int k = 0; k < n; k++) s.insert(ids);
                            });
                            List<long[]> claimed = new ArrayList<>(); // {id, lease}
                            while (claimed.size() < n) {
                                inTransaction(c, writer, () -> s.claim(ids, n - claimed.size(), claimed));
                            }
                            inTransaction(c, writer, () -> {
                                for (long[] job : claimed) s.transition(s.running, job);
                            });
                            inTransaction(c, writer, () -> {
                                for (long[] job : claimed) s.transition(s.completed, job);
                            });
                            inTransaction(c, writer, () -> {
                                for (long[] job : claimed) s.processed(job[0]);
                            });
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) f.get(10, TimeUnit.MINUTES);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        ResourceUse used = meter.stop();
        return new Result(
                mode,
                batch,
                workers,
                jobs,
                LifecycleThroughput.round(seconds),
                LifecycleThroughput.round(jobs / seconds),
                used);
    }

    private interface SqlWork {
        void run() throws SQLException;
    }

    private static void inTransaction(Connection c, ReentrantLock writer, SqlWork work) throws SQLException {
        if (writer != null) writer.lock();
        try {
            // As Jdbi does for the store: sqlite-jdbc opens its BEGIN (IMMEDIATE: the write lock)
            // when auto-commit goes off and again right after a commit, so a connection left in
            // manual mode would hold the lock between its transactions.
            c.setAutoCommit(false);
            work.run();
            c.commit();
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException r) {
                e.addSuppressed(r);
            }
            throw e;
        } finally {
            try {
                c.setAutoCommit(true);
            } finally {
                if (writer != null) writer.unlock();
            }
        }
    }

    /** The lifecycle's statements, prepared once per connection. */
    private static final class Statements {
        final PreparedStatement insert;
        final PreparedStatement claimSelect;
        final PreparedStatement claimUpdate;
        final PreparedStatement running;
        final PreparedStatement completed;
        final PreparedStatement processed;
        long leases;

        Statements(Connection c, String claimSql) throws SQLException {
            insert = c.prepareStatement(
                    "INSERT INTO job (uuid, report_id, project_id, organization_id, source_ip, spec_id, config, timeout,"
                            + " priority, status, created, modified) VALUES (?, ?, ?, ?, '127.0.0.1', ?, '{}', 3600, 200, 0, ?, ?)");
            claimSelect = c.prepareStatement(claimSql);
            claimUpdate = c.prepareStatement(
                    "UPDATE job SET status = 1, runner_id = ?, lease = ?, claimed = ?, attempt = attempt + 1,"
                            + " modified = ? WHERE id = ? AND status = 0");
            running = c.prepareStatement(
                    "UPDATE job SET status = 2, started = ?, modified = ? WHERE id = ? AND status = 1 AND lease = ?");
            completed = c.prepareStatement(
                    "UPDATE job SET status = 3, completed = ?, modified = ? WHERE id = ? AND status = 2 AND lease = ?");
            processed = c.prepareStatement("UPDATE job SET status = 6, modified = ? WHERE id = ? AND status = 3");
        }

        void insert(Ids ids) throws SQLException {
            long now = micros();
            insert.setString(1, UUID.randomUUID().toString());
            insert.setLong(2, ids.report());
            insert.setLong(3, ids.project());
            insert.setLong(4, ids.organization());
            insert.setLong(5, ids.spec());
            insert.setLong(6, now);
            insert.setLong(7, now);
            insert.executeUpdate();
        }

        void claim(Ids ids, int wanted, List<long[]> into) throws SQLException {
            claimSelect.setLong(1, ids.spec());
            claimSelect.setInt(2, wanted);
            List<Long> found = new ArrayList<>();
            try (ResultSet rs = claimSelect.executeQuery()) {
                while (rs.next()) found.add(rs.getLong(1));
            }
            long now = micros();
            for (long id : found) {
                long lease = ++leases + (Thread.currentThread().threadId() << 32);
                claimUpdate.setLong(1, ids.runner());
                claimUpdate.setString(2, Long.toHexString(lease));
                claimUpdate.setLong(3, now);
                claimUpdate.setLong(4, now);
                claimUpdate.setLong(5, id);
                if (claimUpdate.executeUpdate() == 1) into.add(new long[] {id, lease});
            }
        }

        void transition(PreparedStatement ps, long[] job) throws SQLException {
            long now = micros();
            ps.setLong(1, now);
            ps.setLong(2, now);
            ps.setLong(3, job[0]);
            ps.setString(4, Long.toHexString(job[1]));
            if (ps.executeUpdate() != 1)
                throw new IllegalStateException("raw transition of job " + job[0] + " changed no row");
        }

        void processed(long id) throws SQLException {
            processed.setLong(1, micros());
            processed.setLong(2, id);
            if (processed.executeUpdate() != 1)
                throw new IllegalStateException("raw processing of job " + id + " changed no row");
        }

        private static long micros() {
            Instant now = Instant.now();
            return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
        }
    }
}

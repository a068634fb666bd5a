package dev.baton.bench;

import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * Flushed commits per job on PostgreSQL: the WAL flushes (pg_stat_wal.wal_sync, one per
 * fsync/fdatasync of the WAL, PostgreSQL 14+) over the lifecycle phase, divided by its jobs. A
 * commit that rides on another's flush (group commit) costs no flush of its own, so this is what
 * the disk saw, where the store's write transactions per job are what Baton asked for. Also the
 * WAL writes (wal_write) and the database's committed transactions (pg_stat_database.xact_commit,
 * read-only ones included), for comparison.
 *
 * <p>Both counters are the whole cluster's (every database, every client), so the figure is only
 * meaningful on a machine where nothing else uses that PostgreSQL. And a backend publishes its
 * counters at most once a second while busy and otherwise {@value #SETTLE_SECONDS} s after it
 * goes idle (PostgreSQL 15's PGSTAT_IDLE_INTERVAL is 10 s), so the closing reading waits that
 * long after the phase's end; the caller runs something that does not touch PostgreSQL meanwhile.
 */
final class FlushedCommits {
    /** Seconds from the phase's end to the closing reading: the 10 s idle flush of backend statistics, and a margin. */
    static final int SETTLE_SECONDS = 11;

    record Counters(long walSyncs, long walWrites, long commits) {}

    record Result(
            long jobs,
            long walSyncs,
            long walWrites,
            long commits,
            double walSyncsPerJob,
            double walWritesPerJob,
            double commitsPerJob,
            String scope) {}

    /** A phase being counted: {@link #start} right before its first submission, {@link #stop} after its end. */
    static final class Meter {
        private final BenchDatabase database;
        private Counters before;

        Meter(BenchDatabase database) {
            this.database = database;
        }

        void start() {
            before = read(database);
        }

        /** Waits until {@value #SETTLE_SECONDS} s after {@code endedNanos}, then reads again. */
        Result stop(long jobs, long endedNanos) throws InterruptedException {
            long wait = endedNanos + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS) - System.nanoTime();
            if (wait > 0) TimeUnit.NANOSECONDS.sleep(wait);
            return between(before, read(database), jobs);
        }
    }

    private FlushedCommits() {}

    static Result between(Counters before, Counters after, long jobs) {
        long syncs = after.walSyncs() - before.walSyncs();
        long writes = after.walWrites() - before.walWrites();
        long commits = after.commits() - before.commits();
        double perJob = Math.max(1, jobs);
        return new Result(
                jobs,
                syncs,
                writes,
                commits,
                LifecycleThroughput.round(syncs / perJob),
                LifecycleThroughput.round(writes / perJob),
                LifecycleThroughput.round(commits / perJob),
                "WAL flushes and writes: the whole PostgreSQL cluster; commits: the whole database");
    }

    static Counters read(BenchDatabase database) {
        try {
            return database.walCounters();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read pg_stat_wal (PostgreSQL 14 or later): " + e.getMessage(), e);
        }
    }

    static String describe(Result r) {
        return r.walSyncsPerJob() + " WAL flushes/job (" + r.walSyncs() + " over " + r.jobs() + " jobs), "
                + r.walWritesPerJob() + " WAL writes/job, " + r.commitsPerJob()
                + " commits/job in the database (reads included); whole cluster, only meaningful when nothing else uses it";
    }
}

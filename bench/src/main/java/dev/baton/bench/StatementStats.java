package dev.baton.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's statements per job over the lifecycle phase (issue 46), from
 * {@code pg_stat_statements}: calls, rows and execution time per job, split by statement. The
 * phase's database's entries are reset right before its first submission and read right after
 * its last job is processed (the view is updated as each statement ends, unlike the cumulative
 * statistics {@link FlushedCommits} waits for).
 *
 * <p>The view holds the whole database's statements: every client of that database counts, so
 * the figure means something only when nothing else uses it (run the bench on a database of its
 * own: {@code --pg-url postgresql://127.0.0.1:5432/baton_bench}). Where the extension is not
 * loaded ({@code shared_preload_libraries}) or cannot be created, {@link Meter#start} says so
 * and the run prints that note instead of the table.
 */
final class StatementStats {
    /** Statements shown in the table, by calls per job; the rest are summed in one line. */
    static final int SHOWN = 24;

    /** Characters of a statement's text shown (whitespace collapsed). */
    static final int TEXT = 110;

    record Counted(double callsPerJob, double rowsPerCall, double millisPerJob, double meanMillis, String text) {}

    /**
     * One phase's statements. {@code note} is non-null (and the lists empty) where they could not
     * be counted.
     */
    record Result(
            long jobs,
            double statementsPerJob,
            double rowsPerJob,
            double millisPerJob,
            double transactionControlPerJob,
            List<Counted> statements,
            String note) {}

    /** A phase being counted. */
    static final class Meter {
        private final String url;
        private final String user;
        private String note;

        Meter(String pgHostUrl, String user) {
            this.url = "jdbc:" + pgHostUrl;
            this.user = user;
        }

        /** Resets this database's entries; on failure remembers why, and the phase runs uncounted. */
        void start() {
            try (Connection c = DriverManager.getConnection(url, user, "");
                    Statement s = c.createStatement()) {
                try {
                    s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
                } catch (SQLException e) {
                    // not a superuser, or not installed: the reset below says whether the view is there
                }
                s.execute("SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database"
                        + " WHERE datname = current_database()), 0)");
            } catch (SQLException e) {
                note = "pg_stat_statements not available (" + firstLine(e.getMessage())
                        + "); to count: shared_preload_libraries = 'pg_stat_statements', restart,"
                        + " CREATE EXTENSION pg_stat_statements in the bench's database";
            }
        }

        Result stop(long jobs) {
            if (note != null) return new Result(jobs, -1, -1, -1, -1, List.of(), note);
            double perJob = Math.max(1, jobs);
            List<Counted> all = new ArrayList<>();
            double calls = 0, rows = 0, millis = 0, control = 0;
            try (Connection c = DriverManager.getConnection(url, user, "");
                    PreparedStatement s = c.prepareStatement("SELECT calls, rows, total_exec_time, query"
                            + " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database"
                            + " WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'"
                            + " ORDER BY calls DESC, total_exec_time DESC");
                    ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    long n = rs.getLong(1);
                    long r = rs.getLong(2);
                    double ms = rs.getDouble(3);
                    String text = rs.getString(4).replaceAll("\\s+", " ").strip();
                    calls += n;
                    rows += r;
                    millis += ms;
                    if (isTransactionControl(text)) control += n;
                    all.add(new Counted(
                            round(n / perJob),
                            round(n == 0 ? 0 : (double) r / n),
                            round(ms / perJob),
                            round(n == 0 ? 0 : ms / n),
                            text.length() > TEXT ? text.substring(0, TEXT) + "…" : text));
                }
            } catch (SQLException e) {
                return new Result(
                        jobs,
                        -1,
                        -1,
                        -1,
                        -1,
                        List.of(),
                        "pg_stat_statements not readable: " + firstLine(e.getMessage()));
            }
            return new Result(
                    jobs,
                    round(calls / perJob),
                    round(rows / perJob),
                    round(millis / perJob),
                    round(control / perJob),
                    all,
                    null);
        }
    }

    private StatementStats() {}

    static boolean isTransactionControl(String text) {
        String t = text.toUpperCase(java.util.Locale.ROOT);
        return t.equals("BEGIN") || t.equals("COMMIT") || t.equals("ROLLBACK") || t.startsWith("SET ");
    }

    /** The table's rows: a total, then the statements by calls per job, the rest summed. */
    static void addRows(List<String[]> table, String label, Result r) {
        if (r.note() != null) {
            table.add(Bench.row(label, r.note()));
            return;
        }
        table.add(Bench.row(
                label,
                r.statementsPerJob() + " statements/job (" + r.transactionControlPerJob()
                        + " of them BEGIN/COMMIT/SET), " + r.rowsPerJob() + " rows/job, " + r.millisPerJob()
                        + " ms/job executing; whole database, only meaningful when nothing else uses it"));
        int shown = 0;
        double restCalls = 0, restMillis = 0;
        for (Counted s : r.statements()) {
            if (shown++ < SHOWN) {
                table.add(Bench.row(
                        "    " + s.callsPerJob() + "/job, " + s.rowsPerCall() + " rows, " + s.millisPerJob()
                                + " ms/job",
                        s.text()));
            } else {
                restCalls += s.callsPerJob();
                restMillis += s.millisPerJob();
            }
        }
        if (shown > SHOWN)
            table.add(Bench.row(
                    "    " + round(restCalls) + "/job, " + round(restMillis) + " ms/job",
                    (shown - SHOWN) + " other statements"));
    }

    private static String firstLine(String message) {
        if (message == null) return "unknown";
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}

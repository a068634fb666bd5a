package dev.baton.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Where a benchmark's store lives: an SQLite file in a fresh data directory, or a fresh schema on
 * the local PostgreSQL (dropped again on close), so every part of a run starts empty.
 */
final class BenchDatabase implements AutoCloseable {
    enum Kind {
        SQLITE,
        POSTGRESQL
    }

    private final Kind kind;
    private final String pgHostUrl;
    private final String pgUser;
    private final List<String> schemas = new ArrayList<>();

    BenchDatabase(Kind kind, String pgHostUrl, String pgUser) {
        this.kind = kind;
        this.pgHostUrl = pgHostUrl;
        this.pgUser = pgUser;
    }

    Kind kind() {
        return kind;
    }

    /** A Baton database_url for an empty database: null (SQLite file in dataDir) or a new schema. */
    String freshUrl() {
        if (kind == Kind.SQLITE) return null;
        String schema =
                "baton_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = connect()) {
            c.createStatement().execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a schema on " + pgHostUrl + ": " + e.getMessage(), e);
        }
        schemas.add(schema);
        return withQuery(pgHostUrl, "user=" + pgUser + "&currentSchema=" + schema);
    }

    /**
     * {@code url} with {@code query} added to the query it may already have ({@code --pg-url
     * postgresql://127.0.0.1:5432/baton_bench?prepareThreshold=1} keeps its parameters).
     */
    static String withQuery(String url, String query) {
        int q = url.indexOf('?');
        if (q < 0) return url + "?" + query;
        return q == url.length() - 1 || url.endsWith("&") ? url + query : url + "&" + query;
    }

    /** Human description for the report. */
    String describe(Path dataDir) {
        return kind == Kind.SQLITE ? "SQLite (WAL, synchronous=NORMAL) in " + dataDir : "PostgreSQL at " + pgHostUrl;
    }

    /**
     * Committed transactions of the whole database so far (pg_stat_database.xact_commit), or
     * empty on SQLite. Counts every client of that database, and PostgreSQL publishes it with a
     * delay of up to a second, so only deltas over several seconds mean anything.
     */
    OptionalLong commits() {
        if (kind != Kind.POSTGRESQL) return OptionalLong.empty();
        try (Connection c = connect();
                ResultSet rs = c.createStatement()
                        .executeQuery(
                                "SELECT pg_stat_clear_snapshot(), xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
            return rs.next() ? OptionalLong.of(rs.getLong(2)) : OptionalLong.empty();
        } catch (SQLException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * The cluster's WAL flushes and writes (pg_stat_wal) and this database's committed
     * transactions, in one reading ({@link FlushedCommits}); PostgreSQL only.
     */
    FlushedCommits.Counters walCounters() throws SQLException {
        if (kind != Kind.POSTGRESQL) throw new IllegalStateException("pg_stat_wal is PostgreSQL's");
        try (Connection c = connect();
                ResultSet rs = c.createStatement()
                        .executeQuery("SELECT pg_stat_clear_snapshot(), w.wal_sync, w.wal_write, d.xact_commit"
                                + " FROM pg_stat_wal w, pg_stat_database d WHERE d.datname = current_database()")) {
            if (!rs.next()) throw new SQLException("no pg_stat_database row for the current database");
            return new FlushedCommits.Counters(rs.getLong(2), rs.getLong(3), rs.getLong(4));
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:" + pgHostUrl, pgUser, "");
    }

    @Override
    public void close() {
        if (schemas.isEmpty()) return;
        try (Connection c = connect()) {
            for (String schema : schemas) c.createStatement().execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } catch (SQLException e) {
            System.err.println("bench: could not drop schemas " + schemas + ": " + e.getMessage());
        }
    }
}

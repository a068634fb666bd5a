package dev.baton.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Plain JDBC for the statements on a job's hot path (issue 13, docs/decisions/0017-plain-jdbc-hot-path.md):
 * a statement prepared on the handle's own connection, bound and mapped by hand. Jdbi's per-statement
 * machinery (a configuration copy, a statement builder, argument factories, a result iterator) cost
 * more CPU than the database itself on the ~25 statements of a job; Jdbi stays for everything else.
 *
 * <p>The SQL keeps Jdbi's {@code :name} parameters, so a statement reads the same in both styles;
 * it is rewritten to positional {@code ?} ({@link #rewrite}) once per distinct constant text, or on
 * each call for a text built per call: a store's {@link Statements} decide which and hand out the
 * statements. Quoted literals and PostgreSQL's {@code ::} casts are left alone. Nulls are bound
 * with the parameter's declared type, as Jdbi does.
 */
final class Sql {
    /** Maps the current row of a result set; {@link Rows} holds one per stored type. */
    @FunctionalInterface
    interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** A statement's text with positional parameters, and the name bound at each position. */
    record Parsed(String jdbc, String[] positions) {}

    private final Connection connection;
    private final Parsed parsed;
    /** Where a constant statement is kept prepared between uses (SQLite), or null: prepared per use. */
    private final KeptStatements kept;
    /** Each bound name's position in the lists: a heartbeat batch binds thousands of names, so no linear search. */
    private final Map<String, Integer> index = new HashMap<>();

    private final List<Object> values = new ArrayList<>(8);
    private final List<Integer> types = new ArrayList<>(8);

    Sql(Connection connection, Parsed parsed) {
        this(connection, parsed, null);
    }

    Sql(Connection connection, Parsed parsed, KeptStatements kept) {
        this.connection = connection;
        this.parsed = parsed;
        this.kept = kept;
    }

    Sql bind(String name, Long value) {
        return set(name, value, Types.BIGINT);
    }

    Sql bind(String name, long value) {
        return set(name, value, Types.BIGINT);
    }

    Sql bind(String name, Integer value) {
        return set(name, value, Types.INTEGER);
    }

    Sql bind(String name, int value) {
        return set(name, value, Types.INTEGER);
    }

    Sql bind(String name, String value) {
        return set(name, value, Types.VARCHAR);
    }

    Sql bind(String name, boolean value) {
        return set(name, value, Types.BOOLEAN);
    }

    Sql bind(String name, byte[] value) {
        return set(name, value, Types.BINARY);
    }

    private Sql set(String name, Object value, int type) {
        Integer i = index.get(name);
        if (i != null) {
            values.set(i, value);
            types.set(i, type);
        } else {
            index.put(name, values.size());
            values.add(value);
            types.add(type);
        }
        return this;
    }

    /** The only row, or empty; more than one row is a bug in the statement. */
    <T> Optional<T> findOne(Reader<T> reader) {
        return query(rs -> {
            if (!rs.next()) return Optional.empty();
            T row = reader.read(rs);
            if (rs.next()) throw new IllegalStateException("expected one row at most: " + parsed.jdbc());
            return Optional.of(row);
        });
    }

    /** Exactly one row. */
    <T> T one(Reader<T> reader) {
        return findOne(reader).orElseThrow(() -> new IllegalStateException("expected one row: " + parsed.jdbc()));
    }

    /** Whether the query returns any row (its first column is not read). */
    boolean exists() {
        return query(ResultSet::next);
    }

    <T> List<T> list(Reader<T> reader) {
        return query(rs -> {
            List<T> rows = new ArrayList<>();
            while (rs.next()) rows.add(reader.read(rs));
            return rows;
        });
    }

    /** Runs an INSERT, UPDATE or DELETE without RETURNING; the rows it changed. */
    int execute() {
        try {
            PreparedStatement ps = prepared();
            boolean done = false;
            try {
                int changed = ps.executeUpdate();
                done = true;
                return changed;
            } finally {
                release(ps, done);
            }
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /** Runs the query and reads its result set, which is closed (and the statement released) after. */
    private <T> T query(Reader<T> read) {
        try {
            PreparedStatement ps = prepared();
            boolean done = false;
            try {
                T result;
                try (ResultSet rs = ps.executeQuery()) {
                    result = read.read(rs);
                }
                done = true;
                return result;
            } finally {
                release(ps, done);
            }
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /** Closes the statement, or gives it back to be kept when it completed (its result set closed). */
    private void release(PreparedStatement ps, boolean completed) throws SQLException {
        if (kept != null && completed) kept.giveBack(connection, parsed.jdbc(), ps);
        else ps.close();
    }

    private PreparedStatement prepared() throws SQLException {
        PreparedStatement ps =
                kept == null ? connection.prepareStatement(parsed.jdbc()) : kept.take(connection, parsed.jdbc());
        try {
            String[] positions = parsed.positions();
            for (int p = 0; p < positions.length; p++) {
                Integer i = index.get(positions[p]);
                if (i == null)
                    throw new IllegalStateException("parameter :" + positions[p] + " is not bound: " + parsed.jdbc());
                Object v = values.get(i);
                int type = types.get(i);
                if (v == null) ps.setNull(p + 1, type);
                else if (v instanceof Long l) ps.setLong(p + 1, l);
                else if (v instanceof Integer n) ps.setInt(p + 1, n);
                else if (v instanceof Boolean b) ps.setBoolean(p + 1, b);
                else if (v instanceof byte[] bytes) ps.setBytes(p + 1, bytes);
                else ps.setString(p + 1, (String) v);
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /**
     * Failures surface like Jdbi's (an unchecked exception with the SQLException as its cause, which
     * {@code unique} and PostgreSQL's retries look for), naming the statement but never its values:
     * leases and key hashes are bound values.
     */
    private StatementFailed failed(SQLException e) {
        return new StatementFailed(e.getMessage() + " [statement: \"" + parsed.jdbc() + "\"]", e);
    }

    static final class StatementFailed extends RuntimeException {
        StatementFailed(String message, SQLException cause) {
            super(message, cause);
        }
    }

    /** Work on one plain connection (a read outside any transaction). */
    @FunctionalInterface
    interface Work<T> {
        T on(Connection connection);
    }

    /** {@code :name} → {@code ?}, outside quotes; {@code ::} (a PostgreSQL cast) is kept. */
    static Parsed rewrite(String sql) {
        StringBuilder out = new StringBuilder(sql.length());
        List<String> positions = new ArrayList<>();
        int n = sql.length();
        for (int i = 0; i < n; i++) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = sql.indexOf(c, i + 1);
                if (end < 0) end = n - 1;
                out.append(sql, i, end + 1);
                i = end;
            } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':') {
                out.append("::");
                i++;
            } else if (c == ':' && i + 1 < n && Character.isJavaIdentifierStart(sql.charAt(i + 1))) {
                int end = i + 1;
                while (end < n && Character.isJavaIdentifierPart(sql.charAt(end))) end++;
                positions.add(sql.substring(i + 1, end));
                out.append('?');
                i = end - 1;
            } else {
                out.append(c);
            }
        }
        return new Parsed(out.toString(), positions.toArray(String[]::new));
    }
}

package dev.baton.store;

import java.sql.Connection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;

/**
 * Hands out one store's plain JDBC statements ({@link Sql}) and remembers the rewritten texts of
 * its constant ones (docs/decisions/0017-plain-jdbc-hot-path.md). Owned by the store, so two
 * stores (two servers in one JVM) share nothing.
 *
 * <p>Texts given to {@link #on} are a few dozen constants (some chosen from a handful of
 * variants), each rewritten once. Texts built per call go through {@link #once} and are never
 * remembered, so they cannot crowd out a hot statement. Should a caller still hand {@code on}
 * per-call texts, the table is emptied when full rather than frozen: a hot statement is then
 * rewritten once more per {@value #MAX_PARSED} such texts, not on every call.
 */
final class Statements {
    private static final int MAX_PARSED = 512;
    private static final int MAX_PARSED_LENGTH = 8192;

    private final ConcurrentHashMap<String, Sql.Parsed> parsed = new ConcurrentHashMap<>();
    /** Rewrites done, remembered or not (a test counts them). */
    private final AtomicLong rewrites = new AtomicLong();
    /** Set once by a dialect whose driver compiles on every prepare (SQLite), before the store is used. */
    private volatile KeptStatements kept;

    /** Keeps constant statements prepared per connection from now on ({@link KeptStatements}). */
    void keepPrepared() {
        kept = new KeptStatements();
    }

    /** The kept statements, or null when every use prepares its own. */
    KeptStatements kept() {
        return kept;
    }

    /** A statement with {@code :name} parameters on the connection of {@code h} (its transaction, if any). */
    Sql on(Handle h, String sql) {
        return on(h.getConnection(), sql);
    }

    /** A statement with {@code :name} parameters on {@code connection}; kept prepared where the dialect keeps them. */
    Sql on(Connection connection, String sql) {
        Sql.Parsed p = parse(sql);
        // A text too long to remember is not kept prepared either: it is likely built per call.
        return new Sql(connection, p, sql.length() > MAX_PARSED_LENGTH ? null : kept);
    }

    /**
     * A statement whose text was built for this call (an id list, a router's preferences, a
     * heartbeat batch of some size) on the connection of {@code h}: rewritten, never remembered.
     */
    Sql once(Handle h, String sql) {
        return new Sql(h.getConnection(), rewrite(sql));
    }

    /** {@link #once(Handle, String)} on {@code connection}. */
    Sql once(Connection connection, String sql) {
        return new Sql(connection, rewrite(sql));
    }

    /** The rewritten text of a constant statement: remembered after its first use. */
    Sql.Parsed parse(String sql) {
        Sql.Parsed p = parsed.get(sql);
        if (p != null) return p;
        p = rewrite(sql);
        if (sql.length() > MAX_PARSED_LENGTH) return p;
        if (parsed.size() >= MAX_PARSED) parsed.clear();
        parsed.putIfAbsent(sql, p);
        return p;
    }

    long rewrites() {
        return rewrites.get();
    }

    private Sql.Parsed rewrite(String sql) {
        rewrites.incrementAndGet();
        return Sql.rewrite(sql);
    }
}

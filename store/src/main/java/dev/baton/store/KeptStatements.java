package dev.baton.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Constant statements kept prepared on each SQLite connection. SQLite compiles a statement's text
 * (parses and plans it) on every prepare and sqlite-jdbc keeps no cache, so a job's ~25
 * statements, some with a dozen subqueries, were compiled afresh each time: about a quarter of
 * the server's CPU in a profile of the lifecycle benchmark. PostgreSQL's driver already keeps
 * prepared statements per connection (and the server the plans), so only SQLite uses this.
 *
 * <p>Statements are kept per physical connection (under the pool's proxy), which one thread uses
 * at a time. A statement is taken out while in use, so a nested use of the same text prepares its
 * own; it is given back reset (its result set closed, which resets it in sqlite-jdbc, so it holds
 * no read snapshot) and with its parameters cleared. One that failed is closed, not kept. A
 * connection the pool retires closes its statements with it; its entry goes with the connection.
 */
final class KeptStatements {
    /** Most statements kept per connection: the constant texts are a few dozen; more would be texts built per call. */
    static final int MAX_PER_CONNECTION = 256;

    private final Map<Connection, Map<String, PreparedStatement>> byConnection =
            Collections.synchronizedMap(new WeakHashMap<>());
    /** Statements compiled (a test counts them). */
    private final AtomicLong prepares = new AtomicLong();

    /** A prepared statement of {@code jdbc} on {@code connection}'s physical connection: a kept one if free. */
    PreparedStatement take(Connection connection, String jdbc) throws SQLException {
        Connection physical = connection.unwrap(Connection.class);
        PreparedStatement kept = ofConnection(physical).remove(jdbc);
        if (kept != null && !kept.isClosed()) return kept;
        prepares.incrementAndGet();
        return physical.prepareStatement(jdbc);
    }

    /** Gives back a statement whose result set is closed; kept unless one of the same text already is. */
    void giveBack(Connection connection, String jdbc, PreparedStatement statement) throws SQLException {
        statement.clearParameters();
        Map<String, PreparedStatement> mine = ofConnection(connection.unwrap(Connection.class));
        if (mine.size() >= MAX_PER_CONNECTION || mine.putIfAbsent(jdbc, statement) != null) statement.close();
    }

    long prepares() {
        return prepares.get();
    }

    private Map<String, PreparedStatement> ofConnection(Connection physical) {
        return byConnection.computeIfAbsent(physical, c -> new HashMap<>());
    }
}

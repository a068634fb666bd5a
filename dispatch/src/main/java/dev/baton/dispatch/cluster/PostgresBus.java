package dev.baton.dispatch.cluster;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LISTEN/NOTIFY between the nodes on one PostgreSQL schema. The listener holds one dedicated
 * connection (a pooled one is handed to others between uses and cannot hold a LISTEN); a second
 * dedicated connection sends, so that a send never waits behind the listener's blocking read.
 * Events queued while a send is in progress go out together in one statement, duplicates once.
 *
 * <p>The channel is named after the schema, so installations (and tests) in different schemas of
 * one database never hear each other. A listener that loses its connection reconnects and hands
 * the node a {@link ClusterEvent.Resync}: whatever it missed is in the store.
 */
final class PostgresBus implements ClusterBus {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresBus.class);
    private static final int MAX_PER_STATEMENT = 64;
    /** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
    static final int MAX_PAYLOAD_BYTES = 7900;

    private static final long RECONNECT_MILLIS = 1000;

    private final Supplier<Connection> connections;
    private final String nodeId;
    private final LinkedBlockingQueue<ClusterEvent> outbox = new LinkedBlockingQueue<>(65_536);
    private volatile boolean closed;
    private volatile String channel;
    private Thread listener;
    private Thread sender;
    private volatile Connection listening;

    PostgresBus(Supplier<Connection> connections, String nodeId) {
        this.connections = connections;
        this.nodeId = nodeId;
    }

    @Override
    public void start(Consumer<ClusterEvent> handler) {
        // The first LISTEN happens before start returns: an event published once the node is up is heard.
        Connection first = listen();
        listener = Thread.ofPlatform().daemon().name("baton-cluster-listen").start(() -> listenLoop(first, handler));
        sender = Thread.ofPlatform().daemon().name("baton-cluster-notify").start(this::sendLoop);
    }

    @Override
    public void publish(ClusterEvent event) {
        if (closed) return;
        // A full outbox means the database is unreachable; the fallback sweep covers what is dropped.
        if (!outbox.offer(event)) LOG.debug("cluster outbox full: dropping {}", event);
    }

    private Connection listen() {
        Connection c = connections.get();
        try (Statement st = c.createStatement()) {
            if (channel == null) {
                try (ResultSet rs = st.executeQuery("SELECT current_schema()")) {
                    rs.next();
                    channel = "baton_" + rs.getString(1);
                }
            }
            st.execute("LISTEN " + quoted(channel));
            listening = c;
            return c;
        } catch (SQLException e) {
            closeQuietly(c);
            throw new IllegalStateException("cannot LISTEN for cluster events: " + e.getMessage(), e);
        }
    }

    private void listenLoop(Connection first, Consumer<ClusterEvent> handler) {
        Connection c = first;
        while (!closed) {
            try {
                if (c == null) {
                    c = listen();
                    handler.accept(new ClusterEvent.Resync()); // what was sent while we were away is in the store
                }
                PGNotification[] received = c.unwrap(PGConnection.class).getNotifications(5_000);
                if (received == null) {
                    if (!c.isValid(5)) throw new SQLException("listener connection is no longer valid", "08006");
                    continue;
                }
                for (PGNotification n : received) {
                    ClusterEvent.Received r = ClusterEvent.decode(n.getParameter());
                    if (r == null || r.from().equals(nodeId)) continue;
                    try {
                        handler.accept(r.event());
                    } catch (RuntimeException e) {
                        LOG.warn("handling cluster event {} failed", r.event(), e);
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (closed) break;
                LOG.warn("cluster listener lost its connection ({}); reconnecting", e.toString());
                closeQuietly(c);
                c = null;
                sleep(RECONNECT_MILLIS);
            }
        }
        closeQuietly(c);
    }

    private void sendLoop() {
        Connection c = null;
        List<ClusterEvent> batch = new ArrayList<>();
        while (!closed || !outbox.isEmpty()) {
            try {
                if (batch.isEmpty()) {
                    ClusterEvent first = outbox.poll(500, TimeUnit.MILLISECONDS);
                    if (first == null) continue;
                    batch.add(first);
                    outbox.drainTo(batch, MAX_PER_STATEMENT - 1);
                }
                if (c == null) c = connections.get();
                send(c, batch);
                batch.clear();
            } catch (InterruptedException e) {
                if (closed) break;
            } catch (SQLException | RuntimeException e) {
                if (closed) break;
                if (!connectionLost(e)) {
                    // Not the connection: the same statement would fail again. The store holds the truth; the fallback
                    // sweep catches up.
                    LOG.warn("dropping {} cluster events that could not be sent: {}", batch.size(), e.toString());
                    batch.clear();
                    continue;
                }
                LOG.warn("sending cluster events failed ({}); retrying", e.toString());
                closeQuietly(c);
                c = null;
                sleep(RECONNECT_MILLIS);
            }
        }
        closeQuietly(c);
    }

    /** A failure of the connection (or of getting one), as opposed to one of the statement. */
    private static boolean connectionLost(Exception e) {
        if (!(e instanceof SQLException)) return true; // connections.get() failed: no database
        String state = ((SQLException) e).getSQLState();
        return state == null || state.startsWith("08") || state.startsWith("57P");
    }

    private void send(Connection c, List<ClusterEvent> batch) throws SQLException {
        Set<String> payloads = new LinkedHashSet<>();
        for (ClusterEvent e : batch) {
            String payload = ClusterEvent.encode(nodeId, e);
            if (payload.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_PAYLOAD_BYTES) {
                LOG.warn(
                        "cluster event too large for NOTIFY, not sent: {}",
                        e.getClass().getSimpleName());
                continue;
            }
            payloads.add(payload);
        }
        if (payloads.isEmpty()) return;
        StringBuilder sql = new StringBuilder("SELECT 1");
        for (int i = 0; i < payloads.size(); i++) sql.append(", pg_notify(?, ?)");
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int i = 1;
            for (String p : payloads) {
                ps.setString(i++, channel);
                ps.setString(i++, p);
            }
            ps.executeQuery().close();
        }
    }

    @Override
    public void close() {
        closed = true;
        if (sender != null) {
            try {
                sender.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // Closing the listener's connection ends its blocking read.
        closeQuietly(listening);
        if (listener != null) listener.interrupt();
    }

    private static String quoted(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Connection c) {
        if (c == null) return;
        try {
            c.close();
        } catch (SQLException e) {
            // closing a dead connection
        }
    }
}

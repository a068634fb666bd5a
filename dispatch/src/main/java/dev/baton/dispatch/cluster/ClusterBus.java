package dev.baton.dispatch.cluster;

import dev.baton.store.StoreFactory;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * How nodes sharing one database wake each other: PostgreSQL LISTEN/NOTIFY ({@link PostgresBus}),
 * or nothing on SQLite, which is one node ({@link #LOCAL}). A node handles its own events
 * itself; {@link #publish} only reaches the others, after the caller's commit.
 */
public interface ClusterBus extends AutoCloseable {
    /** Starts listening; {@code handler} gets the other nodes' events on the bus's own thread. */
    void start(Consumer<ClusterEvent> handler);

    /** Tells the other nodes, asynchronously (never blocks the caller on the database). */
    void publish(ClusterEvent event);

    @Override
    void close();

    /** One node alone: nothing to tell anyone. */
    ClusterBus LOCAL = new ClusterBus() {
        @Override
        public void start(Consumer<ClusterEvent> handler) {}

        @Override
        public void publish(ClusterEvent event) {}

        @Override
        public void close() {}
    };

    /** The bus of this database: PostgreSQL's LISTEN/NOTIFY on dedicated connections, or {@link #LOCAL}. */
    static ClusterBus open(String databaseUrl, Path dataDir, String nodeId) {
        return StoreFactory.directConnections(databaseUrl, dataDir)
                .<ClusterBus>map(connections -> new PostgresBus(connections, nodeId))
                .orElse(LOCAL);
    }
}

package dev.baton.dispatch.channel;

import dev.baton.dispatch.RunnerSession;
import dev.baton.dispatch.Sessions;
import dev.baton.dispatch.cluster.ClusterBus;
import dev.baton.dispatch.cluster.ClusterEvent;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Server-directed words to a connected runner ({@code drain}, {@code update}) wherever its channel
 * is: on this node directly, on another live node through the cluster bus. Shared by the admin
 * routes and the fleet roll, so both reach a runner the same way.
 */
final class RunnerDirectives {
    private final Store store;
    private final Sessions sessions;
    private final ClusterBus bus;
    private final String nodeId;
    private final Clock clock;
    private final Duration nodeTimeout;

    RunnerDirectives(Store store, Sessions sessions, ClusterBus bus, String nodeId, Clock clock, Duration nodeTimeout) {
        this.store = store;
        this.sessions = sessions;
        this.bus = bus;
        this.nodeId = nodeId;
        this.clock = clock;
        this.nodeTimeout = nodeTimeout;
    }

    /** Sends {@code message} to the runner; the node that holds its channel, or empty when it has none on a live node. */
    Optional<String> deliver(long runnerId, ServerMessage message) {
        Optional<RunnerSession> session = sessions.of(runnerId);
        if (session.isPresent()) {
            session.get().send(message);
            return Optional.of(nodeId);
        }
        Optional<String> elsewhere = connectedNode(runnerId);
        elsewhere.ifPresent(n -> bus.publish(new ClusterEvent.ToRunner(runnerId, Wire.encode(message))));
        return elsewhere;
    }

    /** The live node holding the runner's channel, this one included, if any. */
    Optional<String> connectedNode(long runnerId) {
        if (sessions.of(runnerId).isPresent()) return Optional.of(nodeId);
        return store.nodes().runnerNode(runnerId).filter(this::alive);
    }

    boolean alive(String node) {
        Instant since = clock.instant().minus(nodeTimeout);
        return store.nodes().listNodes().stream()
                .anyMatch(n -> n.id().equals(node)
                        && n.stopped() == null
                        && !n.lastHeartbeat().isBefore(since));
    }
}

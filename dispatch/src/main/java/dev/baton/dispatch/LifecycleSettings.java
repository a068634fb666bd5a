package dev.baton.dispatch;

import dev.baton.core.config.ServerConfig;
import dev.baton.store.Store;
import java.time.Duration;

/**
 * The timeouts and bounds the job lifecycle enforces (see {@link ServerConfig}).
 * {@code declineBackoff} is how long a job declined by every runner of its spec rests before
 * they may try it again (docs/protocol.md, "Declines"). {@code nodeId} names this node among the
 * nodes sharing the database; a node silent for {@code nodeTimeout} is dead and its runners are
 * treated as disconnected (docs/operations.md). {@code quarantineThreshold} infrastructure
 * failures of a runner within {@code quarantineWindow} quarantine it (0: never; docs/scheduling.md).
 */
public record LifecycleSettings(
        Duration heartbeatTimeout,
        Duration acceptanceTimeout,
        Duration jobTimeoutGrace,
        Duration cancelDeadline,
        int maxRequeues,
        Duration declineBackoff,
        String nodeId,
        Duration nodeTimeout,
        int quarantineThreshold,
        Duration quarantineWindow) {

    public static LifecycleSettings of(ServerConfig config) {
        return new LifecycleSettings(
                config.heartbeatTimeout(),
                config.acceptanceTimeout(),
                config.jobTimeoutGrace(),
                config.cancelDeadline(),
                config.maxRequeues(),
                Store.DEFAULT_DECLINE_BACKOFF,
                config.nodeId(),
                config.nodeTimeout(),
                config.quarantineThreshold(),
                config.quarantineWindow());
    }
}

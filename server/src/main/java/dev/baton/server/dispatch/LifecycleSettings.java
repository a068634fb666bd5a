package dev.baton.server.dispatch;

import dev.baton.server.config.ServerConfig;
import java.time.Duration;

/** The timeouts and bounds the job lifecycle enforces (see {@link ServerConfig}). */
public record LifecycleSettings(
        Duration heartbeatTimeout, Duration acceptanceTimeout, Duration jobTimeoutGrace, Duration cancelDeadline, int maxRequeues) {

    public static LifecycleSettings of(ServerConfig config) {
        return new LifecycleSettings(config.heartbeatTimeout(), config.acceptanceTimeout(), config.jobTimeoutGrace(),
                config.cancelDeadline(), config.maxRequeues());
    }
}

package dev.baton.router;

import java.time.Duration;

/**
 * The router's timing, all on the injected clock (docs/router.md, docs/configuration.md).
 *
 * @param name                how the router names itself in reasons it sends upstream (its upstream runner)
 * @param acceptanceWindow    a job the router holds must be accepted ({@code running}) by a runner behind it within
 *                            this; each {@code preparing} of the runner it was offered to restarts it; then it is
 *                            declined upstream
 * @param heartbeatTimeout    a runner behind the router that sends no valid message for this long is lost; a
 *                            disconnected runner has this long to come back before its jobs are lost
 * @param keepAlive           how often a job waiting for a runner behind the router is kept alive upstream
 *                            ({@code preparing}); well under the server's acceptance timeout
 * @param upstreamPollSeconds the poll timeout of the router's own {@code ready} upstream (1–900)
 * @param maxMessageBytes     bound on a message in either direction; the server's {@code request_body_max_bytes}
 *                            (16 MiB by default), so that a runner's message the server would take passes the router
 */
public record RouterSettings(
        String name,
        Duration acceptanceWindow,
        Duration heartbeatTimeout,
        Duration keepAlive,
        int upstreamPollSeconds,
        int maxMessageBytes) {
    public static RouterSettings defaults(String name) {
        return new RouterSettings(
                name, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(10), 30, 16 * 1024 * 1024);
    }

    public RouterSettings withAcceptanceWindow(Duration d) {
        return new RouterSettings(name, d, heartbeatTimeout, keepAlive, upstreamPollSeconds, maxMessageBytes);
    }

    public RouterSettings withHeartbeatTimeout(Duration d) {
        return new RouterSettings(name, acceptanceWindow, d, keepAlive, upstreamPollSeconds, maxMessageBytes);
    }

    public RouterSettings withMaxMessageBytes(int bytes) {
        return new RouterSettings(name, acceptanceWindow, heartbeatTimeout, keepAlive, upstreamPollSeconds, bytes);
    }

    public RouterSettings withKeepAlive(Duration d) {
        return new RouterSettings(name, acceptanceWindow, heartbeatTimeout, d, upstreamPollSeconds, maxMessageBytes);
    }
}

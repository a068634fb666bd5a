package dev.baton.router;

import dev.baton.protocol.message.ServerMessage;

/** One downstream runner connection, as the router's core sees it. */
public interface Link {
    void send(ServerMessage message);

    void close(int code, String reason);

    /** Where the runner connected from, as the router sees it ({@code ip:port}), or null when unknown (issue 41). */
    default String remoteAddress() {
        return null;
    }
}

package dev.baton.router;

import dev.baton.protocol.message.RunnerMessage;

/** The router's own channel to the Baton server, as the core sees it. */
public interface Upstream {
    /** Sends on the current connection; dropped when there is none (terminals are in the outbox). */
    void send(RunnerMessage message);
}

package dev.baton.runner.connection;

import java.net.URI;
import java.net.http.HttpClient;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The HTTP client the agent talks to its server with. Built without a TLS context when the server's
 * address is plain {@code http}: the JDK's client otherwise initialises the default
 * {@code SSLContext} when it is built, which parses every CA certificate of the JDK's trust store
 * and loads the TLS stack (about 430 classes and 1.2 MiB of heap, 2026-11-29) that an agent on a
 * plain-HTTP server never uses, and keeps all of it for its life (issue 45, decision 0068). The
 * context given instead is never initialised: a TLS connection through this client fails instead of
 * running without the trust store.
 *
 * <p>Its executor runs each task at once, on the thread that hands it over: the client's selector
 * thread, which read the bytes, runs the channel's listener itself instead of waking a worker
 * thread for it (the JDK's default executor: one more thread, and one more wake-up per message;
 * an idle agent's heartbeat and its {@code ack} every 10 s, issue 45, decision 0074). That is safe
 * because this client serves only the agent's channel, whose listener never blocks: it queues the
 * server's messages for the agent's loop and completes pull-token futures; sends and their waits
 * happen on the agent's own threads. A listener that blocked here would stall the channel's I/O
 * (why JDK-8268294 moved the JDK's WebSocket listeners off the selector thread). For now only a
 * plain-HTTP client: over TLS the same executor would also run the handshake's tasks on the
 * selector thread, which no test here covers yet; an {@code https} client keeps the JDK's workers.
 */
public final class ServerHttpClient {
    private ServerHttpClient() {}

    /**
     * A client for {@code server}, with the JDK's default TLS context only when its scheme is
     * {@code https}; a plain-HTTP one without worker threads, only for listeners that never block.
     */
    public static HttpClient forServer(URI server) {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
        if ("http".equalsIgnoreCase(server.getScheme())) {
            builder.executor(Runnable::run);
            try {
                builder.sslContext(SSLContext.getInstance("TLS")).sslParameters(new SSLParameters());
            } catch (NoSuchAlgorithmException e) {
                // Every JDK has TLS; without it the default context is what the client gets.
            }
        }
        return builder.build();
    }
}

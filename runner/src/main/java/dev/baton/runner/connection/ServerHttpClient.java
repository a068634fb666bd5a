package dev.baton.runner.connection;

import java.net.URI;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Duration;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The HTTP client the agent talks to its server with. Built without a TLS context when the server's
 * address is plain {@code http}: the JDK's client otherwise initialises the default
 * {@code SSLContext} when it is built, which parses every CA certificate of the JDK's trust store
 * and loads the TLS stack (about 430 classes and 1.2 MiB of heap, 2026-11-29) that an agent on a
 * plain-HTTP server never uses, and keeps all of it for its life (issue 45, decision 0068). The
 * context given instead is {@link NoTls}, which has no provider behind it: even asking the JDK for
 * an uninitialised {@code TLS} context loads its provider's cipher suites and key-exchange tables
 * (decision 0078). A TLS connection through this client fails instead of running without the trust
 * store.
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
            builder.executor(Runnable::run).sslContext(new NoTls()).sslParameters(new SSLParameters());
        }
        return builder.build();
    }

    /** A TLS context for a client that never speaks TLS: each use fails, saying why. */
    static final class NoTls extends SSLContext {
        NoTls() {
            super(new Refusing(), null, "none");
        }
    }

    private static final class Refusing extends SSLContextSpi {
        private static UnsupportedOperationException refused() {
            return new UnsupportedOperationException(
                    "this client talks plain HTTP to its server; it has no TLS (ServerHttpClient)");
        }

        @Override
        protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random) {
            throw refused();
        }

        @Override
        protected SSLSocketFactory engineGetSocketFactory() {
            throw refused();
        }

        @Override
        protected SSLServerSocketFactory engineGetServerSocketFactory() {
            throw refused();
        }

        @Override
        protected SSLEngine engineCreateSSLEngine() {
            throw refused();
        }

        @Override
        protected SSLEngine engineCreateSSLEngine(String host, int port) {
            throw refused();
        }

        @Override
        protected SSLSessionContext engineGetServerSessionContext() {
            throw refused();
        }

        @Override
        protected SSLSessionContext engineGetClientSessionContext() {
            throw refused();
        }
    }
}

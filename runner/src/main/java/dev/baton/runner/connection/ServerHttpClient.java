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
 */
public final class ServerHttpClient {
    private ServerHttpClient() {}

    /** A client for {@code server}, with the JDK's default TLS context only when its scheme is {@code https}. */
    public static HttpClient forServer(URI server) {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
        if ("http".equalsIgnoreCase(server.getScheme())) {
            try {
                builder.sslContext(SSLContext.getInstance("TLS")).sslParameters(new SSLParameters());
            } catch (NoSuchAlgorithmException e) {
                // Every JDK has TLS; without it the default context is what the client gets.
            }
        }
        return builder.build();
    }
}

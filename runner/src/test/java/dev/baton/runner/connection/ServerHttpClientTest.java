package dev.baton.runner.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.runner.testing.ScriptedPeer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

class ServerHttpClientTest {
    @Test
    void aPlainHttpServerGetsAClientWithoutTheDefaultTlsContextThatStillTalksToIt() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/ping", exchange -> {
            byte[] body = "pong".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
            HttpClient client = ServerHttpClient.forServer(base);

            // Not even an uninitialised context of the JDK's provider (decision 0078): none is behind it.
            assertThat(client.sslContext())
                    .isInstanceOf(ServerHttpClient.NoTls.class)
                    .extracting(SSLContext::getProvider)
                    .isNull();
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(base.resolve("/ping")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.body()).isEqualTo("pong");
        } finally {
            server.stop(0);
        }
    }

    /**
     * The channel's messages reach the listener on the client's selector thread, the one that read
     * them, not on a worker it hands them to: one thread fewer to wake per message (decision 0074).
     */
    @Test
    void channelMessagesAreHandledOnTheSelectorThreadWithoutAWorker() throws Exception {
        String key = "baton_runner_" + "0".repeat(64);
        try (ScriptedPeer peer = new ScriptedPeer(key, (p, m) -> List.of())) {
            HttpClient client = ServerHttpClient.forServer(peer.url());
            CompletableFuture<String> textThread = new CompletableFuture<>();
            WebSocket socket = client.newWebSocketBuilder()
                    .header("Authorization", "Bearer " + key)
                    .buildAsync(
                            URI.create(peer.url().toString().replace("http:", "ws:") + "/v0/runners/r/channel"),
                            new WebSocket.Listener() {
                                @Override
                                public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                                    textThread.complete(Thread.currentThread().getName());
                                    return null;
                                }
                            })
                    .get(10, TimeUnit.SECONDS);
            peer.send(new ServerMessage.NoJob());

            assertThat(textThread.get(10, TimeUnit.SECONDS))
                    .contains("SelectorManager")
                    .doesNotContain("Worker");
            // And the socket still sends from the caller's thread while the selector serves it.
            socket.sendText(
                            dev.baton.protocol.message.Wire.encode(new RunnerMessage.Heartbeat(null, null, List.of())),
                            true)
                    .get(10, TimeUnit.SECONDS);
            assertThat(peer.await(RunnerMessage.Heartbeat.class, java.time.Duration.ofSeconds(10)))
                    .isNotNull();
            socket.abort();
        }
    }

    /** The plain-HTTP client's context refuses TLS outright, saying why, instead of talking TLS without a trust store. */
    @Test
    void thePlainHttpClientsTlsContextRefusesEveryUse() {
        SSLContext context =
                ServerHttpClient.forServer(URI.create("http://127.0.0.1:1")).sslContext();

        assertThatThrownBy(context::createSSLEngine)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("plain HTTP");
        assertThatThrownBy(context::getSocketFactory).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> context.init(null, null, null)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void anHttpsServerGetsTheDefaultTlsContextAndTheJdksWorkers() throws Exception {
        HttpClient client = ServerHttpClient.forServer(URI.create("https://baton.example.com"));

        assertThat(client.sslContext()).isSameAs(SSLContext.getDefault());
        assertThat(client.executor()).isEmpty();
    }
}

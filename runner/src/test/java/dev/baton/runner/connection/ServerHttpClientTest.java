package dev.baton.runner.connection;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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

            assertThat(client.sslContext()).isNotSameAs(SSLContext.getDefault());
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(base.resolve("/ping")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.body()).isEqualTo("pong");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void anHttpsServerGetsTheDefaultTlsContext() throws Exception {
        HttpClient client = ServerHttpClient.forServer(URI.create("https://baton.example.com"));

        assertThat(client.sslContext()).isSameAs(SSLContext.getDefault());
    }
}

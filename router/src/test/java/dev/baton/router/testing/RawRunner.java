package dev.baton.router.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A runner that speaks the protocol by hand over a real WebSocket, for exact protocol checks. */
public final class RawRunner implements AutoCloseable {
    private final BlockingQueue<ServerMessage> inbox = new LinkedBlockingQueue<>();
    private final WebSocket socket;
    private volatile int closeCode = -1;

    public RawRunner(URI base, String runner, String key) {
        StringBuilder text = new StringBuilder();
        this.socket = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .header("Authorization", "Bearer " + key)
                .buildAsync(
                        URI.create("ws://" + base.getRawAuthority() + "/v0/runners/" + runner + "/channel"),
                        new WebSocket.Listener() {
                            @Override
                            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                                text.append(data);
                                if (last) {
                                    inbox.add(Wire.decodeServerMessage(text.toString()));
                                    text.setLength(0);
                                }
                                ws.request(1);
                                return null;
                            }

                            @Override
                            public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
                                closeCode = statusCode;
                                return null;
                            }
                        })
                .join();
    }

    public void send(RunnerMessage message) {
        socket.sendText(Wire.encode(message), true).join();
    }

    public <T extends ServerMessage> T expect(Class<T> type) {
        ServerMessage m = next(Duration.ofSeconds(20));
        assertThat(m).as("expected %s", type.getSimpleName()).isInstanceOf(type);
        return type.cast(m);
    }

    /** The next message that is not a bare ack (acks of keep-alives may interleave). */
    public <T extends ServerMessage> T expectSkippingAcks(Class<T> type) {
        while (true) {
            ServerMessage m = next(Duration.ofSeconds(20));
            if (m instanceof ServerMessage.Ack && type != ServerMessage.Ack.class) continue;
            assertThat(m).as("expected %s", type.getSimpleName()).isInstanceOf(type);
            return type.cast(m);
        }
    }

    public ServerMessage next(Duration wait) {
        try {
            ServerMessage m = inbox.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(m).as("a message within " + wait).isNotNull();
            return m;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public int closeCode() {
        return closeCode;
    }

    @Override
    public void close() {
        socket.abort();
    }
}

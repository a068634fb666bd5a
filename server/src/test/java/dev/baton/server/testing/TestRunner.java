package dev.baton.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A runner speaking the real protocol over a real WebSocket, scripted by the test: it sends
 * what it is told and records everything the server sends.
 */
public final class TestRunner implements AutoCloseable {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final WebSocket socket;
    private final BlockingQueue<ServerMessage> received;
    private final CompletableFuture<Integer> closed;
    private final CompletableFuture<ServerMessage.Welcome> welcome;

    private TestRunner(WebSocket socket, Listener listener) {
        this.socket = socket;
        this.received = listener.received;
        this.closed = listener.closed;
        this.welcome = listener.welcome;
    }

    public static TestRunner connect(URI channel, String key) {
        // The listener owns what arrives: the server's welcome may come before buildAsync completes.
        var listener = new Listener();
        WebSocket ws = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .header("Authorization", "Bearer " + key)
                .buildAsync(channel, listener)
                .join();
        return new TestRunner(ws, listener);
    }

    public void send(RunnerMessage message) {
        sendRaw(Wire.encode(message));
    }

    public void sendRaw(String text) {
        socket.sendText(text, true).join();
    }

    /**
     * Sends one message as several WebSocket frames of at most {@code frameChars} characters
     * (continuation frames), as a client with a big message may: the JDK client garbles a single
     * frame of tens of megabytes.
     */
    public void sendInFrames(RunnerMessage message, int frameChars) {
        String text = Wire.encode(message);
        int at = 0;
        while (at < text.length()) {
            int end = Math.min(text.length(), at + frameChars);
            if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) end--;
            socket.sendText(text.substring(at, end), end == text.length()).join();
            at = end;
        }
    }

    public void sendBinary(byte[] bytes) {
        socket.sendBinary(ByteBuffer.wrap(bytes), true).join();
    }

    public void sendPing() {
        socket.sendPing(ByteBuffer.wrap(new byte[] {1})).join();
    }

    /** The next message from the server, which must be of {@code type}. */
    public <T extends ServerMessage> T expect(Class<T> type) {
        ServerMessage m = next();
        assertThat(m).as("next message from the server").isInstanceOf(type);
        return type.cast(m);
    }

    public ServerMessage next() {
        try {
            ServerMessage m = received.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(m).as("a message from the server within " + WAIT).isNotNull();
            return m;
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The next message within {@code window}, or null when none came. */
    public ServerMessage poll(Duration window) {
        try {
            return received.poll(window.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Asserts that nothing arrives within a short moment (used after actions that must not reply). */
    public void expectSilence(Duration window) {
        try {
            ServerMessage m = received.poll(window.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(m).as("no message from the server").isNull();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The welcome that opened this connection. */
    public ServerMessage.Welcome welcome() {
        return welcome.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** The close code once the server closed this connection. */
    public int awaitClose() {
        return closed.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    public boolean isClosed() {
        return closed.isDone();
    }

    @Override
    public void close() {
        if (!socket.isOutputClosed()) socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye");
        socket.abort();
    }

    /** Drops the TCP connection without a close handshake, like a crashed runner. */
    public void crash() {
        socket.abort();
    }

    private static final class Listener implements WebSocket.Listener {
        final BlockingQueue<ServerMessage> received = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        final CompletableFuture<ServerMessage.Welcome> welcome = new CompletableFuture<>();
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                ServerMessage message = Wire.decodeServerMessage(text);
                // The welcome opens every connection; scripts read it with welcome(), not next().
                if (message instanceof ServerMessage.Welcome w) welcome.complete(w);
                else received.add(message);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.complete(-1);
        }
    }
}

package dev.baton.channelclient.connection;

import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.InvalidMessageException;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.value.RunnerKey;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner's side of the channel: one WebSocket ({@code java.net.http}) to
 * {@code /v0/runners/{runner}/channel}, authenticated with the runner key. It turns socket events
 * into machine {@link Input}s and sends messages the machine decides on. Every connection gets its
 * own listener, so events of an old connection can never be mistaken for the current one, and a
 * connection reports its end exactly once.
 */
public final class ChannelClient {
    private static final Logger log = LoggerFactory.getLogger(ChannelClient.class);
    /** How long one fragment of a message may take to be written (progress, not the whole message: see FragmentedSender). */
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(10);

    private static final int LARGE_MESSAGE_BYTES = 1 << 20;
    /** The server's close code for a connection another connection of the same runner replaced (docs/protocol.md). */
    public static final int CLOSE_REPLACED = 4001;
    /** The WebSocket close code for a message over the receiver's limit (RFC 6455): the server's word that a result was too big. */
    public static final int CLOSE_TOO_BIG = 1009;
    /** The server's close code for a connect over the runner's connect limit; its reason says "retry in N s". */
    public static final int CLOSE_TOO_MANY_CONNECTS = 4029;

    private static final Pattern RETRY_IN = Pattern.compile("retry in (\\d{1,6}) s");
    /** How long a failed send waits for the server's close frame, whose code says why (1009: too big). */
    private static final Duration CLOSE_FRAME_WAIT = Duration.ofSeconds(1);

    private final HttpClient http;
    private final URI uri;
    private final String runner;
    private final RunnerKey key;
    private final int maxMessageBytes;
    private final Consumer<Input> sink;
    private final Clock clock;
    private volatile Connection current;
    private volatile Consumer<ServerMessage> tap = message -> {};

    /**
     * @param server base URL of the server (http, https, ws or wss)
     * @param runner the runner's UUID or slug
     * @param maxMessageBytes bound on a message in either direction; larger ones are not sent or accepted
     */
    public ChannelClient(
            HttpClient http,
            URI server,
            String runner,
            RunnerKey key,
            int maxMessageBytes,
            Consumer<Input> sink,
            Clock clock) {
        this.http = http;
        this.uri = channelUri(server, runner);
        this.runner = runner;
        this.key = key;
        this.maxMessageBytes = maxMessageBytes;
        this.sink = sink;
        this.clock = clock;
    }

    static URI channelUri(URI server, String runner) {
        String scheme = switch (server.getScheme() == null ? "" : server.getScheme()) {
            case "http", "ws" -> "ws";
            case "https", "wss" -> "wss";
            default ->
                throw new IllegalArgumentException("server URL must start with http:// or https://, got " + server);
        };
        String base = server.getRawPath() == null ? "" : server.getRawPath().replaceAll("/+$", "");
        return URI.create(scheme + "://" + server.getRawAuthority() + base + "/v0/runners/"
                + java.net.URLEncoder.encode(runner, StandardCharsets.UTF_8) + "/channel");
    }

    public URI uri() {
        return uri;
    }

    /** Also hands every server message to {@code listener}, before the machine (pull token answers, issue 41). */
    public void tap(Consumer<ServerMessage> listener) {
        this.tap = listener;
    }

    /** The wait a 4029 close asks for ("… retry in N s"), or null for any other close. */
    static Duration retryAfter(int statusCode, String reason) {
        if (statusCode != CLOSE_TOO_MANY_CONNECTS || reason == null) return null;
        Matcher m = RETRY_IN.matcher(reason);
        return m.find() ? Duration.ofSeconds(Long.parseLong(m.group(1))) : null;
    }

    /** Opens a connection in the background; reports {@link Input.ConnectionOpened} or {@link Input.ConnectionClosed}. */
    public void connect() {
        Connection c = new Connection();
        current = c;
        http.newWebSocketBuilder()
                .header("Authorization", "Bearer " + key.reveal())
                .connectTimeout(Duration.ofSeconds(10))
                .buildAsync(uri, c)
                .whenComplete((ws, error) -> {
                    if (error != null) c.closed(describe(error, runner), isFatal(error));
                });
    }

    /**
     * Sends one message on the current connection and returns once it is written; a failed send
     * closes it (the machine reconnects). Safe to call from several threads: the connection's
     * {@link FragmentedSender} writes one message at a time.
     */
    public void send(RunnerMessage message) {
        Connection c = current;
        if (c == null || c.sender == null || c.ended.get()) {
            log.debug("not connected; {} not sent", message.getClass().getSimpleName());
            return;
        }
        String json = Wire.encode(message);
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxMessageBytes) {
            // The machine fits results to the limit (MessageBudget), so this is a bug; say so loudly.
            log.error(
                    "{} of {} bytes exceeds the message limit of {} bytes; not sent",
                    message.getClass().getSimpleName(),
                    bytes,
                    maxMessageBytes);
            return;
        }
        try {
            long started = System.nanoTime();
            c.sender.send(json);
            // Large messages are rare (results) and take seconds: worth a line when a delivery is slow.
            if (bytes > LARGE_MESSAGE_BYTES)
                log.info(
                        "sent a {} of {} bytes in {} ms",
                        message.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT),
                        bytes,
                        (System.nanoTime() - started) / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("send failed: {}", e.toString());
            // A server that refuses a message as too big closes while it is still being written; the
            // write fails first, but the close frame with the reason is on its way: let it report.
            c.awaitEnd(CLOSE_FRAME_WAIT);
            c.socket.abort();
            c.closed("send failed: " + e.getMessage(), false);
        }
    }

    /** Closes the current connection without reporting it (shutdown). */
    public void close() {
        Connection c = current;
        current = null;
        if (c == null) return;
        c.ended.set(true);
        if (c.socket != null) {
            try {
                c.socket.sendClose(WebSocket.NORMAL_CLOSURE, "runner stopping").get(2, TimeUnit.SECONDS);
            } catch (Exception e) {
                c.socket.abort();
            }
        }
    }

    private static boolean isFatal(Throwable error) {
        Throwable t = error;
        while (t != null) {
            if (t instanceof WebSocketHandshakeException h) {
                int status = h.getResponse().statusCode();
                return status == 401 || status == 403 || status == 404;
            }
            t = t.getCause();
        }
        return false;
    }

    private static String describe(Throwable error, String runner) {
        Throwable t = error;
        while (t != null) {
            if (t instanceof WebSocketHandshakeException h) {
                boolean router = h.getResponse()
                        .headers()
                        .firstValue(REFUSED_BY)
                        .map("router"::equals)
                        .orElse(false);
                return describeRefusal(h.getResponse().statusCode(), runner, router);
            }
            if (t.getCause() == null) break;
            t = t.getCause();
        }
        return t.toString();
    }

    /** A router sets this header on a refused upgrade ({@code router}): the key is one of the router's, not the server's. */
    public static final String REFUSED_BY = "Baton-Refused-By";

    /**
     * What a refused upgrade means for the operator: for a refused key, which runner and how to
     * rotate its key (where the key comes from: the server, or the router it connects to).
     */
    static String describeRefusal(int status, String runner, boolean router) {
        if ((status == 401 || status == 403) && router) {
            return "HTTP " + status + ": the router refused the key of runner '" + runner
                    + "' (wrong, rotated or malformed key, or not"
                    + " in its keys file). Give it a new key with 'baton router keys rotate " + runner
                    + " --keys-file <file>' (or 'baton"
                    + " router keys add') where the router's keys file is, put the key in the key file (or BATON_RUNNER_KEY) and start the"
                    + " runner again";
        }
        return switch (status) {
            case 401, 403 ->
                "HTTP " + status + ": the server refused the key of runner '" + runner + "' (wrong, rotated or"
                        + " malformed key, or no such active runner). Give it a new key with 'baton runners rotate-key "
                        + runner
                        + "' (where the admin token is), put the key in the key file (or BATON_RUNNER_KEY) and start the runner again";
            case 404 ->
                "HTTP 404: no runner channel at this address; check --server (the Baton server's URL) and --runner";
            default -> "HTTP " + status;
        };
    }

    /** One connection's listener: assembles fragmented text, bounds its size, reports once. */
    private final class Connection implements WebSocket.Listener {
        final AtomicBoolean ended = new AtomicBoolean();
        private final java.util.concurrent.CountDownLatch end = new java.util.concurrent.CountDownLatch(1);
        volatile WebSocket socket;
        volatile FragmentedSender sender;
        private final StringBuilder text = new StringBuilder();
        private boolean oversized;

        @Override
        public void onOpen(WebSocket webSocket) {
            socket = webSocket;
            sender = new FragmentedSender(webSocket, SEND_TIMEOUT);
            sink.accept(new Input.ConnectionOpened(clock.instant()));
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            if (!oversized) {
                text.append(data);
                // chars ≤ bytes in UTF-8, so this is a cheap lower bound first
                if (text.length() > maxMessageBytes) {
                    oversized = true;
                    text.setLength(0);
                }
            }
            if (last) {
                if (oversized) {
                    sink.accept(new Input.Malformed("message larger than " + maxMessageBytes + " bytes"));
                } else {
                    deliver(text.toString());
                }
                text.setLength(0);
                oversized = false;
            }
            webSocket.request(1);
            return null;
        }

        private void deliver(String json) {
            if (ended.get()) return;
            try {
                ServerMessage message = Wire.decodeServerMessage(json);
                tap.accept(message);
                sink.accept(new Input.Received(message));
            } catch (InvalidMessageException e) {
                sink.accept(new Input.Malformed(e.getMessage()));
            }
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            if (last) sink.accept(new Input.Malformed("binary frame"));
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed(
                    "closed by server (" + statusCode + (reason == null || reason.isEmpty() ? "" : " " + reason) + ")",
                    false,
                    statusCode == CLOSE_REPLACED,
                    statusCode == CLOSE_TOO_BIG,
                    retryAfter(statusCode, reason));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed("connection error: " + error, false);
        }

        void closed(String reason, boolean fatal) {
            closed(reason, fatal, false, false, null);
        }

        void closed(String reason, boolean fatal, boolean replaced, boolean tooBig, Duration retryAfter) {
            if (ended.compareAndSet(false, true)) {
                if (socket != null) socket.abort();
                sink.accept(new Input.ConnectionClosed(clock.instant(), reason, fatal, replaced, tooBig, retryAfter));
                end.countDown();
            }
        }

        /** Waits until this connection has reported its end, at most {@code wait}. */
        void awaitEnd(Duration wait) {
            try {
                end.await(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

package dev.baton.router.net;

import dev.baton.channelclient.connection.ChannelClient;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.Upstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's channel to the server: the runner agent's own {@link ChannelClient} (same
 * handshake, key header, size bound and close handling), reconnected with a backoff of 0.5 s
 * doubling to 15 s that a successful connection resets. Events go to {@code sink} (the event loop).
 */
public final class UpstreamConnection implements Upstream, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(UpstreamConnection.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(15);

    private final ChannelClient client;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("baton-router-upstream").unstarted(r));
    private final Consumer<Input> sink;
    private volatile boolean closed;
    private Duration backoff = FIRST_BACKOFF;

    /** @param sink receives {@link Input.ConnectionOpened}, {@link Input.Received}, {@link Input.Malformed} and {@link Input.ConnectionClosed} */
    public UpstreamConnection(
            URI server, String runner, RunnerKey key, int maxMessageBytes, Consumer<Input> sink, Clock clock) {
        this.sink = sink;
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        this.client = new ChannelClient(http, server, runner, key, maxMessageBytes, this::event, clock);
    }

    public void start() {
        client.connect();
    }

    private void event(Input input) {
        if (input instanceof Input.ConnectionOpened) {
            synchronized (this) {
                backoff = FIRST_BACKOFF;
            }
        }
        sink.accept(input);
        if (input instanceof Input.ConnectionClosed c && !closed) {
            if (c.fatal()) log.error("upstream refused the router: {}; retrying in {}", c.reason(), MAX_BACKOFF);
            Duration wait;
            synchronized (this) {
                wait = c.fatal() ? MAX_BACKOFF : backoff;
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            }
            timer.schedule(
                    () -> {
                        if (!closed) client.connect();
                    },
                    wait.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void send(RunnerMessage message) {
        client.send(message);
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        client.close();
    }
}

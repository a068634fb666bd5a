package dev.baton.runner.lease;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PullSubscribeOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The NATS transport's half that goes to the broker: one pull subscription per spec on the spec's shared
 * durable consumer (explicit ack: an offer this runner pulled but did not take goes to another
 * runner), and the runner's control subject, where CancelRequested arrives. The connection
 * reconnects by itself; a pull while it is down fails and is tried again by the caller.
 */
final class LeaseQueue implements AutoCloseable {
    private final Connection connection;
    private Dispatcher control;

    private LeaseQueue(Connection connection) {
        this.connection = connection;
    }

    /**
     * Connects with {@code inboxPrefix} (the server's {@code LeaseSubjects.inbox_prefix}) for every
     * reply this connection awaits, pulled offers among them: the runner's NATS user may subscribe
     * only there, so no other runner can read its offers, and this one none of theirs
     * (docs/operations.md). Null (a server that names none) keeps jnats's {@code _INBOX}.
     */
    static LeaseQueue connect(String url, String runner, String inboxPrefix) throws IOException, InterruptedException {
        Options.Builder options = new Options.Builder()
                .server(url)
                .connectionName("baton-runner-" + runner)
                .maxReconnects(-1)
                .reconnectWait(Duration.ofMillis(500))
                .connectionTimeout(Duration.ofSeconds(5));
        if (inboxPrefix != null && !inboxPrefix.isBlank()) options.inboxPrefix(inboxPrefix);
        return new LeaseQueue(Nats.connectReconnectOnConnect(options.build()));
    }

    /** Binds to the spec's consumer (the server creates it; a runner allowed to create one does when it is missing). */
    JetStreamSubscription pull(String stream, String subject, String consumer)
            throws IOException, JetStreamApiException {
        return connection
                .jetStream()
                .subscribe(
                        subject,
                        PullSubscribeOptions.builder().stream(stream)
                                .durable(consumer)
                                .build());
    }

    /** At most one offer, waiting up to {@code wait} for one. */
    static Message next(JetStreamSubscription sub, Duration wait) {
        List<Message> got = sub.fetch(1, wait);
        return got.isEmpty() ? null : got.getFirst();
    }

    /** Every message on {@code subject} (the runner's control subject), as text, on NATS's dispatcher thread. */
    synchronized void listen(String subject, Consumer<String> handler) {
        if (control == null) control = connection.createDispatcher();
        control.subscribe(subject, m -> handler.accept(new String(m.getData(), StandardCharsets.UTF_8)));
    }

    boolean connected() {
        return connection.getStatus() == Connection.Status.CONNECTED;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

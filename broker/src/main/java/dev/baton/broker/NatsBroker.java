package dev.baton.broker;

import dev.baton.core.config.BrokerSettings;
import dev.baton.protocol.id.LeaseId;
import dev.baton.store.LeaseOffer;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.PublishAck;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's connection to NATS: the JetStream work-queue stream leases are offered on, and the
 * per-runner control subjects. The connection reconnects by itself for ever; while it is down,
 * offers wait in the outbox (the database), so nothing depends on the broker keeping anything.
 */
public final class NatsBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NatsBroker.class);

    /** The stream of offers, and the subject prefix of each spec's work queue. */
    public static final String STREAM = "BATON_LEASES";

    public static final String LEASES = "baton.leases.";
    public static final String CONTROL = "baton.control.";
    public static final String INBOX = "_INBOX_baton.";

    private final Connection connection;
    private final JetStream jetStream;
    private final Duration maxAge;
    private volatile boolean streamReady;
    /** Specs whose consumer this node has made sure of since the stream was last (re)checked. */
    private final java.util.Set<String> consumersReady = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private NatsBroker(Connection connection, Duration maxAge) throws IOException {
        this.connection = connection;
        this.jetStream = connection.jetStream();
        this.maxAge = maxAge;
    }

    /**
     * Connects to {@code url} (waiting for it in the background when it is down), as the user in
     * {@code credentials} when given (a {@code .creds} or nkey seed file: {@link NatsCredentials}),
     * else as the URL's userinfo, if any. {@code maxAge} bounds how long an offer stays in the
     * stream: one older than its acceptance window has been revoked and offered again under a new
     * lease, so keeping it would only make runners pull stale leases.
     */
    public static NatsBroker connect(String url, Path credentials, Duration maxAge) {
        Options.Builder options = new Options.Builder()
                .server(url)
                .connectionName("baton-server")
                .maxReconnects(-1)
                .reconnectWait(Duration.ofMillis(500))
                .connectionTimeout(Duration.ofSeconds(5));
        if (credentials != null) options.authHandler(NatsCredentials.fromFile(credentials));
        try {
            Connection c = Nats.connectReconnectOnConnect(options.build());
            return new NatsBroker(c, maxAge);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot set up NATS client for " + BrokerSettings.redactUserinfo(url) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted connecting to NATS", e);
        }
    }

    public static NatsBroker connect(String url, Duration maxAge) {
        return connect(url, null, maxAge);
    }

    /** The subject a spec's offers go to (slugs are lower-case letters, digits and dashes). */
    public static String leaseSubject(String specSlug) {
        return LEASES + specSlug.toLowerCase(Locale.ROOT);
    }

    /** The durable pull consumer a spec's runners share (a work-queue stream allows one consumer per subject). */
    public static String consumer(String specSlug) {
        return "baton-" + specSlug.toLowerCase(Locale.ROOT);
    }

    public static String controlSubject(String runnerSlug) {
        return CONTROL + runnerSlug.toLowerCase(Locale.ROOT);
    }

    /**
     * The prefix of a runner's reply subjects (jnats {@code Options.Builder.inboxPrefix}; a pull's
     * offer arrives on {@code <prefix>.<random>}). Its NATS user may subscribe to
     * {@code <prefix>.>} and to nothing of another runner's: with the shared {@code _INBOX.>} any
     * runner could read every offer pulled by the others (lease id, job, env). A slug is lower-case
     * letters, digits and single dashes, so it is one subject token; {@code _INBOX_baton} keeps it
     * clear of clients' default {@code _INBOX} (the server's own replies among them).
     */
    public static String inboxPrefix(String runnerSlug) {
        return INBOX + runnerSlug.toLowerCase(Locale.ROOT);
    }

    public boolean connected() {
        return connection.getStatus() == Connection.Status.CONNECTED;
    }

    public String status() {
        return connection.getStatus().name().toLowerCase(Locale.ROOT);
    }

    /**
     * Whether JetStream itself answered, as last seen: the connection alone says nothing of it (a
     * nats-server whose config reload dropped JetStream keeps every client connected while each
     * publish of an offer fails). {@code error} is what failed, null while available; {@code seen}
     * when it was last checked or learned from a publish.
     */
    public record JetStreamHealth(boolean available, String error, Instant seen) {
        static final JetStreamHealth UNKNOWN = new JetStreamHealth(false, "not checked yet", null);
    }

    private volatile JetStreamHealth health = JetStreamHealth.UNKNOWN;

    public JetStreamHealth jetStream() {
        return health;
    }

    /** How long {@link #checkJetStream} waits for JetStream's answer (a JetStream that was shut down does not answer at all). */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(2);

    /**
     * Asks JetStream for this account's statistics ({@code $JS.API.INFO}), which only a server
     * with JetStream enabled answers: while it was last seen available, when that is older than
     * {@code every}; while it was not, every time (one bounded request, so offers flow again
     * within a round of its return, and no publish is tried meanwhile). The pump calls this each
     * round, so a JetStream gone while nothing is offered is reported too.
     */
    void checkJetStream(Instant now, Duration every) {
        JetStreamHealth last = health;
        if (last.available() && now.isBefore(last.seen().plus(every))) return;
        try {
            connection
                    .jetStreamManagement(JetStreamOptions.builder()
                            .requestTimeout(CHECK_TIMEOUT)
                            .build())
                    .getAccountStatistics();
            health = new JetStreamHealth(true, null, now);
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            forgetReadiness();
            health = new JetStreamHealth(false, e.toString(), now);
        }
    }

    /**
     * Creates the work-queue stream when it is missing (a new broker, or one whose stream was
     * deleted); called before publishing after any failure, so a broker that lost its state gets
     * the stream back and the outbox fills it again.
     */
    void ensureStream() throws IOException, JetStreamApiException {
        if (streamReady) return;
        JetStreamManagement jsm = connection.jetStreamManagement();
        StreamConfiguration config = StreamConfiguration.builder()
                .name(STREAM)
                .subjects(LEASES + ">")
                .retentionPolicy(RetentionPolicy.WorkQueue)
                .storageType(StorageType.File)
                .maxAge(maxAge)
                .duplicateWindow(maxAge)
                .build();
        try {
            StreamInfo info = jsm.getStreamInfo(STREAM);
            if (!info.getConfiguration().getMaxAge().equals(maxAge)) jsm.updateStream(config);
        } catch (JetStreamApiException missing) {
            if (missing.getApiErrorCode() != 10059) throw missing; // 10059: stream not found
            jsm.addStream(config);
            LOG.info("created NATS stream {} for subjects {}>", STREAM, LEASES);
        }
        streamReady = true;
    }

    /**
     * Creates the spec's durable pull consumer when it is missing, so a runner needs no right to
     * create consumers (docs/operations.md gives runners only MSG.NEXT, INFO and ACK): explicit
     * acks, redelivery after {@code ackWait} of a message a runner pulled and never answered.
     */
    void ensureConsumer(String specSlug, Duration ackWait) throws IOException, JetStreamApiException {
        if (streamReady && consumersReady.contains(specSlug)) return;
        try {
            ensureStream();
            JetStreamManagement jsm = connection.jetStreamManagement();
            String name = consumer(specSlug);
            try {
                jsm.getConsumerInfo(STREAM, name);
            } catch (JetStreamApiException missing) {
                if (missing.getApiErrorCode() != 10014) throw missing; // 10014: consumer not found
                jsm.addOrUpdateConsumer(
                        STREAM,
                        ConsumerConfiguration.builder()
                                .durable(name)
                                .filterSubject(leaseSubject(specSlug))
                                .ackPolicy(AckPolicy.Explicit)
                                .ackWait(ackWait)
                                .maxDeliver(-1)
                                .build());
                LOG.info("created NATS consumer {} on {}", name, leaseSubject(specSlug));
            }
            consumersReady.add(specSlug);
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            forgetReadiness();
            throw e;
        }
    }

    /** What a batch publish came to: the offers the stream stored (acknowledged), and the rest. */
    record Published(List<LeaseId> stored, List<LeaseId> failed, String error) {}

    /**
     * Publishes {@code offers} together (JetStream async publish: all are sent before any
     * acknowledgement is awaited) and waits up to {@code wait} in all for the stream's
     * acknowledgements; an acknowledged offer is stored. The lease is each message's id, so a
     * publish repeated within the duplicate window (a node that died after publishing and before
     * marking the rows, or a batch whose acknowledgements came too late) is stored once.
     */
    Published publishOffers(List<LeaseOffer> offers, Duration wait, Instant now) {
        try {
            ensureStream();
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            forgetReadiness();
            health = new JetStreamHealth(false, e.toString(), now);
            return new Published(
                    List.of(), offers.stream().map(LeaseOffer::lease).toList(), e.toString());
        }
        List<CompletableFuture<PublishAck>> acks = new ArrayList<>(offers.size());
        for (LeaseOffer o : offers) {
            Headers headers = new Headers().add("Nats-Msg-Id", o.lease().value());
            try {
                acks.add(jetStream.publishAsync(NatsMessage.builder()
                        .subject(o.subject())
                        .headers(headers)
                        .data(o.payload(), StandardCharsets.UTF_8)
                        .build()));
            } catch (RuntimeException e) {
                acks.add(CompletableFuture.failedFuture(e));
            }
        }
        List<LeaseId> stored = new ArrayList<>();
        List<LeaseId> failed = new ArrayList<>();
        String error = null;
        long deadline = System.nanoTime() + wait.toNanos();
        for (int i = 0; i < offers.size(); i++) {
            CompletableFuture<PublishAck> ack = acks.get(i);
            try {
                ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                stored.add(offers.get(i).lease());
            } catch (ExecutionException | TimeoutException | CancellationException e) {
                ack.cancel(false);
                failed.add(offers.get(i).lease());
                if (error == null) error = (e instanceof ExecutionException x ? x.getCause() : e).toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                for (int j = i; j < offers.size(); j++) failed.add(offers.get(j).lease());
                error = "interrupted waiting for the stream's acknowledgements";
                break;
            }
        }
        if (!failed.isEmpty()) forgetReadiness();
        // The stream's acknowledgements are JetStream's own word; a failure is taken as its absence until a check says
        // otherwise.
        if (!failed.isEmpty()) health = new JetStreamHealth(false, error, now);
        else if (!stored.isEmpty()) health = new JetStreamHealth(true, null, now);
        return new Published(stored, failed, error);
    }

    /** After a failure the stream and consumers are checked again (a broker that lost its state gets them back). */
    private void forgetReadiness() {
        streamReady = false;
        consumersReady.clear();
    }

    /** A control message (CancelRequested) to one runner: core NATS, at most once; the heartbeat answer repeats it. */
    void publishControl(String runnerSlug, String payload) {
        try {
            connection.publish(controlSubject(runnerSlug), payload.getBytes(StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            LOG.debug("control message to runner {} not sent: {}", runnerSlug, e.toString());
        }
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

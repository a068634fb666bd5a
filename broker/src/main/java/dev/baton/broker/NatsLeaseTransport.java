package dev.baton.broker;

import dev.baton.core.config.BrokerSettings;
import dev.baton.core.config.ServerConfig;
import dev.baton.core.events.Changes;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.dispatch.JobPullTokens;
import dev.baton.dispatch.channel.RunnerChannel;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.Wire;
import dev.baton.store.Job;
import dev.baton.store.LeaseOffer;
import dev.baton.store.LeaseOffers;
import dev.baton.store.Store;
import dev.baton.store.token.PullTokens;
import dev.baton.web.http.ReadinessReport;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transport A assembled (docs/protocol.md, "Transport A"; docs/decisions/0025-transport-a-nats.md):
 * the NATS connection, the lease pump (outbox → JetStream, revocation, expiry), the runners'
 * HTTPS endpoints, and CancelRequested on each runner's control subject. Present only when
 * {@code nats_url} is set; the runner channel (transport B) is unchanged beside it.
 */
public final class NatsLeaseTransport implements RouteModule, ReadinessReport, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NatsLeaseTransport.class);
    /**
     * How often the pump runs without being woken: due revocations and expiries, an outbox the
     * broker refused, and a wake-up that was lost wait at most this long. A job that becomes
     * pending wakes the pump at once ({@link #wake}), so this is the fallback, as the runner
     * channel's sweep is.
     */
    static final Duration FALLBACK_EVERY = Duration.ofSeconds(1);

    private final Store store;
    private final BrokerSettings settings;
    private final NatsBroker broker;
    private final LeasePump pump;
    private final LeaseRoutes routes;
    private final RunnerChannel channel;
    private final Clock clock;
    /** Every round of the pump runs here, one at a time, woken or timed: a test's {@link #pump()} too. */
    private final ScheduledExecutorService loop =
            Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "baton-lease-pump"));

    private final ExecutorService control =
            Executors.newSingleThreadExecutor(r -> new Thread(r, "baton-lease-control"));
    private final Changes.Subscription cancels;
    private final Runnable pendingListener;
    /** A woken round is queued and has not started: further wake-ups are covered by it (it reads the store when it starts). */
    private final AtomicBoolean woken = new AtomicBoolean();

    public NatsLeaseTransport(
            ServerConfig config,
            Store store,
            Clock clock,
            RunnerChannel channel,
            PullTokens pullTokens,
            BatonMetrics metrics) {
        this(config, store, clock, channel, pullTokens, metrics, FALLBACK_EVERY);
    }

    /** With the fallback round every {@code fallback}, or none when null (tests that run the pump by hand or rely on wake-ups alone). */
    NatsLeaseTransport(
            ServerConfig config,
            Store store,
            Clock clock,
            RunnerChannel channel,
            PullTokens pullTokens,
            BatonMetrics metrics,
            Duration fallback) {
        this.store = store;
        this.settings = config.broker();
        this.channel = channel;
        this.clock = clock;
        this.broker = NatsBroker.connect(
                config.broker().natsUrl(),
                config.broker().natsCredentials() == null
                        ? null
                        : java.nio.file.Path.of(config.broker().natsCredentials()),
                config.acceptanceTimeout());
        BrokerMetrics counters = new BrokerMetrics(metrics, broker);
        this.pump = new LeasePump(
                store,
                broker,
                config.broker(),
                clock,
                config.acceptanceTimeout(),
                config.maxRequeues(),
                counters,
                this::expired);
        JobPullTokens jobTokens = new JobPullTokens(pullTokens, config.jobTimeoutGrace());
        this.routes = new LeaseRoutes(
                store,
                channel.lifecycle(),
                jobTokens,
                config.broker(),
                clock,
                config.acceptanceTimeout(),
                config.maxRequeues(),
                config.requestBodyMaxBytes(),
                counters,
                this::expired);
        this.cancels = channel.changes().subscribe(change -> {
            if (change instanceof Changes.JobChanged j) control.execute(() -> pushCancel(j.job()));
        });
        this.pendingListener = channel.onJobPending(this::jobPending);
        if (fallback != null) {
            long every = fallback.toMillis();
            loop.scheduleWithFixedDelay(this::pumpQuietly, every, every, TimeUnit.MILLISECONDS);
        }
        // Never the URL's userinfo: it is the server's NATS password (docs/operations.md: prefer nats_credentials).
        LOG.info(
                "transport A: leases offered on NATS at {} for {}",
                config.broker().natsUrlForLogs(),
                config.broker().allSpecs()
                        ? "every spec"
                        : "specs " + config.broker().natsSpecs());
    }

    /**
     * One round of the pump now, after any round already queued (tests): revocations, expiries,
     * new offers, the outbox. Returns how many offers this round published.
     */
    public int pump() {
        try {
            return loop.submit(pump::pump).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the lease pump", e);
        }
    }

    /**
     * A job of spec {@code specId} became pending, on this node or another (the cluster bus): when
     * the broker offers that spec, a round of the pump is queued now, so the job is offered without
     * waiting for the fallback round. Runs on the dispatcher's thread: it only looks the spec up
     * (cached) and queues.
     */
    private void jobPending(long specId) {
        try {
            boolean offered = settings.allSpecs()
                    || store.specs()
                            .findSpec(specId)
                            .map(s -> settings.offers(s.slug().value()))
                            .orElse(false);
            if (offered) wake();
        } catch (RuntimeException e) {
            LOG.debug("lease pump not woken for spec {} (the fallback round offers the job): {}", specId, e.toString());
        }
    }

    /** Queues one round of the pump unless one is queued and not yet started. */
    void wake() {
        if (!woken.compareAndSet(false, true)) return;
        try {
            loop.execute(() -> {
                woken.set(false);
                pumpQuietly();
            });
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            woken.set(false);
        }
    }

    public NatsBroker broker() {
        return broker;
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        routes.addRoutes(config);
    }

    /**
     * {@code "broker"} in {@code /ready}: the connection's state (connected, reconnecting, …) and
     * JetStream's, since a connected broker whose JetStream is gone publishes no offer; offers wait
     * in the database meanwhile, so neither makes the node unready (decision 0025).
     */
    @Override
    public String readinessName() {
        return "broker";
    }

    @Override
    public Object readiness() {
        NatsBroker.JetStreamHealth js = broker.jetStream();
        var answer = new java.util.LinkedHashMap<String, Object>();
        answer.put("state", broker.status());
        answer.put("connected", broker.connected());
        answer.put("jetstream", js.available() ? "available" : js.seen() == null ? "unknown" : "unavailable");
        if (js.error() != null) answer.put("jetstream_error", js.error());
        if (js.seen() != null) answer.put("jetstream_checked", js.seen().toString());
        return answer;
    }

    /** A lease expired: the lifecycle forgets its attempt, and a job back in the queue is offered again. */
    private void expired(LeaseOffers.Expired e) {
        LeaseOffer o = e.offer();
        LOG.info(
                "lease of job {} expired without heartbeats (attempt {})",
                o.job(),
                e.before().attempt());
        if (e.after() == null) return;
        channel.lifecycle()
                .deadlineSweep()
                .attemptEnded(o.job(), e.before().attempt(), o.runnerId() == null ? -1 : o.runnerId(), null, o.lease());
        if (e.after().status() == JobStatus.PENDING) channel.jobSubmitted(e.after());
    }

    /** A job canceled under a bound lease: CancelRequested on its runner's control subject (the HeartbeatAck says it too). */
    private void pushCancel(dev.baton.protocol.id.JobUuid uuid) {
        try {
            Job job = store.runs().findJob(uuid).orElse(null);
            if (job == null || job.status() != JobStatus.CANCELED || job.lease() == null || job.runnerId() == null)
                return;
            LeaseOffer o = store.leaseOffers().find(job.lease()).orElse(null);
            if (o == null || o.state() != LeaseOffer.State.BOUND) return;
            Instant deadline = store.leaseOffers().cancelDeadline(job.lease()).orElse(null);
            if (deadline == null) return;
            Instant now = clock.instant();
            String runner = store.runners()
                    .findRunner(job.runnerId())
                    .map(r -> r.slug().value())
                    .orElse(null);
            if (runner == null) return;
            broker.publishControl(
                    runner,
                    Wire.encode(new LeaseMessages.CancelRequested(
                            "CancelRequested",
                            job.lease().value(),
                            uuid.toString(),
                            "RUN_CANCELED",
                            Math.max(0, Duration.between(now, deadline).toSeconds()),
                            now.toString())));
        } catch (RuntimeException e) {
            LOG.debug("CancelRequested for job {} not sent: {}", uuid, e.toString());
        }
    }

    private void pumpQuietly() {
        try {
            pump.pump();
        } catch (RuntimeException e) {
            LOG.warn("lease pump failed; the next round retries: {}", e.toString());
        }
    }

    @Override
    public void close() {
        pendingListener.run();
        cancels.close();
        loop.shutdownNow();
        control.shutdownNow();
        broker.close();
    }
}

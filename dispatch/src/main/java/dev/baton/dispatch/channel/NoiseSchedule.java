package dev.baton.dispatch.channel;

import dev.baton.store.Node;
import dev.baton.store.NoiseReading;
import dev.baton.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks connected idle runners to measure their noise again (issue 45, decision 0062): a runner
 * whose latest calibration, and the last time this node asked it, are both at least
 * {@code noise_calibration_interval} ago, and that holds no attempt, is sent {@code calibrate}.
 * A pass every {@link #EVERY}; only the node holding the calibration lease (a named row, as the
 * pool scaler's) acts in it, so a cluster asks each runner once. Times are the injected clock's.
 */
public final class NoiseSchedule implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NoiseSchedule.class);
    /** How often every node runs a pass (the interval is hours in practice; a minute late costs nothing). */
    static final Duration EVERY = Duration.ofMinutes(1);
    /** How long the lease lasts; each pass renews it, so a holder that died is replaced after this. */
    static final Duration LEASE = Duration.ofMinutes(3);

    private final Store store;
    private final String nodeId;
    private final Clock clock;
    private final Duration interval;
    private final Duration nodeTimeout;
    /** Sends {@code calibrate} to the runner; the node holding its channel, empty when none does. */
    private final LongFunction<Optional<String>> ask;
    /** When this node last asked each runner: a runner that does not answer (an older agent, a router) is asked once per interval. */
    private final Map<Long, Instant> asked = new HashMap<>();

    private ScheduledExecutorService ticker;

    NoiseSchedule(
            Store store,
            String nodeId,
            Clock clock,
            Duration interval,
            Duration nodeTimeout,
            LongFunction<Optional<String>> ask) {
        this.store = store;
        this.nodeId = nodeId;
        this.clock = clock;
        this.interval = interval;
        this.nodeTimeout = nodeTimeout;
        this.ask = ask;
    }

    /** Whether the setting is on (a positive interval). */
    boolean enabled() {
        return interval.isPositive();
    }

    /** Runs a pass every {@link #EVERY} from now on, when enabled. */
    void start() {
        if (!enabled()) return;
        ticker = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("baton-noise-schedule").daemon().factory());
        ticker.scheduleWithFixedDelay(this::passQuietly, EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void passQuietly() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            LOG.warn("noise calibration schedule failed; the next pass retries: {}", e.toString());
        }
    }

    /** One pass: the runners asked; none when off or when another node holds the lease. */
    synchronized List<Long> runOnce() {
        if (!enabled()) return List.of();
        Instant now = clock.instant();
        if (!store.noise().takeCalibrationLease(nodeId, now, now.plus(LEASE))) {
            asked.clear(); // another node decides now; if the lease comes back, the store's history says who is due
            return List.of();
        }
        Instant aliveSince = now.minus(nodeTimeout);
        List<Long> askedNow = new java.util.ArrayList<>();
        for (Node node : store.nodes().listNodes()) {
            if (node.stopped() != null || node.lastHeartbeat().isBefore(aliveSince)) continue;
            for (long runner : store.nodes().runnersOn(node.id())) {
                if (!due(runner, now) || store.noise().holdsAttempt(runner)) continue;
                if (ask.apply(runner).isPresent()) {
                    asked.put(runner, now);
                    askedNow.add(runner);
                }
            }
        }
        if (!askedNow.isEmpty()) LOG.info("asked {} idle runner(s) to measure their noise (schedule)", askedNow.size());
        return askedNow;
    }

    /** Neither its latest calibration nor this node's last request is within the interval. */
    private boolean due(long runner, Instant now) {
        Instant before = now.minus(interval);
        Instant last = asked.get(runner);
        if (last != null && last.isAfter(before)) return false;
        List<NoiseReading> latest = store.noise().noiseHistory(runner, 1);
        return latest.isEmpty() || !latest.get(0).measured().isAfter(before);
    }

    @Override
    public void close() {
        if (ticker != null) ticker.shutdownNow();
    }
}

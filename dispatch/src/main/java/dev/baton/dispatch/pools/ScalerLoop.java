package dev.baton.dispatch.pools;

import dev.baton.web.http.AfterHttpStart;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link PoolScaler} on every node (issue 43): a pass every {@code every}, and one soon
 * after a job became pending ({@link #wake}, several wake-ups before it runs make one pass), so a
 * cold pool answers a submission at once instead of at its next tick. Passes run one at a time on
 * one thread; only the node holding the scaler lease acts in them. A failed pass (the store away)
 * is logged, and the next one starts again from what the store holds.
 */
public final class ScalerLoop implements AfterHttpStart, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ScalerLoop.class);
    /** How often every node runs a pass when nothing wakes it. */
    public static final Duration EVERY = Duration.ofSeconds(2);

    private final PoolScaler scaler;
    private final Duration every;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("baton-pool-scaler").daemon().factory());
    private final AtomicBoolean woken = new AtomicBoolean();

    public ScalerLoop(PoolScaler scaler, Duration every) {
        this.scaler = scaler;
        this.every = every;
    }

    /** Runs from when HTTP listens: a machine started earlier would find no server to register with. */
    @Override
    public void afterHttpStart(Supplier<String> advertiseUrl) {
        start();
    }

    public void start() {
        ticker.scheduleWithFixedDelay(this::passQuietly, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A job became pending: a pass soon (one for any number of wake-ups before it runs). */
    public void wake() {
        if (!woken.compareAndSet(false, true)) return;
        try {
            ticker.execute(() -> {
                woken.set(false);
                passQuietly();
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            woken.set(false); // closed
        }
    }

    private void passQuietly() {
        try {
            scaler.runOnce();
        } catch (RuntimeException e) {
            log.warn("pool scaler pass failed; the next one retries: {}", e.toString());
        }
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}

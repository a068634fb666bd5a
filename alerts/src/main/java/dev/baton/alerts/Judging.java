package dev.baton.alerts;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link Judge} off the threads that process results, so judging never delays result
 * processing: a processed report is judged soon after on this node, and a sweep judges any
 * processed report left unjudged, such as one whose node stopped between processing and judging:
 * at start every one, then every {@code sweepEvery} those processed in the last
 * {@link #RECENT} (by the injected clock; a cheap indexed read, and every node sweeps). Judging
 * twice is harmless: the store writes one judgement per report.
 */
public final class Judging implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Judging.class);
    private static final int SWEEP_BATCH = 200;
    /** How far back the periodic sweep looks: far longer than any node takes to judge what it processed. */
    static final Duration RECENT = Duration.ofHours(1);

    private final Judge judge;
    private final dev.baton.core.metrics.BatonMetrics metrics;
    private final dev.baton.store.AlertStore store;
    private final java.time.Clock clock;
    private volatile boolean sweptAll;
    // One thread: reports of one branch are judged in the order they were processed.
    private final ExecutorService worker = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("baton-judge").daemon().factory());
    private final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("baton-judge-sweep").daemon().factory());

    public Judging(Judge judge, dev.baton.store.AlertStore store, java.time.Clock clock, Duration sweepEvery) {
        this(judge, store, clock, sweepEvery, null);
    }

    /** As above, each judgement's time on {@code /metrics} ({@code baton_judge_duration_seconds}; null: not measured). */
    public Judging(
            Judge judge,
            dev.baton.store.AlertStore store,
            java.time.Clock clock,
            Duration sweepEvery,
            dev.baton.core.metrics.BatonMetrics metrics) {
        this.metrics = metrics;
        this.judge = judge;
        this.store = store;
        this.clock = clock;
        sweeper.scheduleWithFixedDelay(this::sweepQuietly, 0, sweepEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Judges the report soon, on the judging thread. */
    public void judgeSoon(long reportId) {
        try {
            worker.execute(() -> {
                try {
                    timed("processed", reportId);
                } catch (RuntimeException e) {
                    // The sweep judges it later.
                    LOG.warn("judging report {} failed: {}", reportId, e.toString());
                }
            });
        } catch (RejectedExecutionException e) {
            // Stopping: the next start's sweep judges it.
        }
    }

    /** Judges every processed report not judged yet, oldest first; returns how many were judged. */
    public int sweep() {
        return sweep(null);
    }

    /** As {@link #sweep()}, among reports changed since {@code since} (null: all). */
    int sweep(java.time.Instant since) {
        int judged = 0;
        List<Long> previous = List.of();
        while (true) {
            List<Long> batch = store.unjudgedReports(since, SWEEP_BATCH);
            // A batch that did not move (a report that cannot be judged now) waits for the next sweep.
            if (batch.isEmpty() || batch.equals(previous)) return judged;
            for (long id : batch) timed("sweep", id);
            judged += batch.size();
            if (batch.size() < SWEEP_BATCH) return judged;
            previous = batch;
        }
    }

    /** Judges one report; its time goes to /metrics (a duration on the monotonic clock, not the injected one). */
    private void timed(String origin, long reportId) {
        long start = System.nanoTime();
        judge.judge(reportId);
        if (metrics != null) metrics.judged(origin, Duration.ofNanos(System.nanoTime() - start));
    }

    private void sweepQuietly() {
        try {
            sweep(sweptAll ? clock.instant().minus(RECENT) : null);
            sweptAll = true;
        } catch (RuntimeException e) {
            // The database may be away for a moment; the next sweep tries again.
            LOG.warn("judging sweep failed: {}", e.toString());
        }
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
        worker.shutdown();
        try {
            worker.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

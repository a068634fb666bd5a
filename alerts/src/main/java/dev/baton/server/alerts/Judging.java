package dev.baton.server.alerts;

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
 * processing: a processed report is judged soon after on this node, and a sweep (at start and
 * then every {@code sweepEvery}) judges any processed report left unjudged, such as one whose
 * node stopped between processing and judging. Judging twice is harmless: the store writes one
 * judgement per report.
 */
public final class Judging implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Judging.class);
    private static final int SWEEP_BATCH = 200;

    private final Judge judge;
    private final dev.baton.server.store.AlertStore store;
    // One thread: reports of one branch are judged in the order they were processed.
    private final ExecutorService worker = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("baton-judge").daemon().factory());
    private final ScheduledExecutorService sweeper =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("baton-judge-sweep").daemon().factory());

    public Judging(Judge judge, dev.baton.server.store.AlertStore store, Duration sweepEvery) {
        this.judge = judge;
        this.store = store;
        sweeper.scheduleWithFixedDelay(this::sweepQuietly, 0, sweepEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Judges the report soon, on the judging thread. */
    public void judgeSoon(long reportId) {
        try {
            worker.execute(() -> {
                try {
                    judge.judge(reportId);
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
        int judged = 0;
        List<Long> previous = List.of();
        while (true) {
            List<Long> batch = store.unjudgedReports(SWEEP_BATCH);
            // A batch that did not move (a report that cannot be judged now) waits for the next sweep.
            if (batch.isEmpty() || batch.equals(previous)) return judged;
            for (long id : batch) judge.judge(id);
            judged += batch.size();
            if (batch.size() < SWEEP_BATCH) return judged;
            previous = batch;
        }
    }

    private void sweepQuietly() {
        try {
            sweep();
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

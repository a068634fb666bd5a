package dev.baton.store;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL's pending counts are kept one row per backend (V42, decision 0070), so that
 * concurrent submissions and claims never wait on each other's count row. A backend that ends
 * leaves its rows behind; this folds them into backend 0 every few minutes, so that the rows a
 * queue status sums stay about as many as the live connections.
 *
 * <p>The fold never waits on a live transaction: it skips rows locked now ({@code SKIP LOCKED}),
 * whose backends are alive anyway or will be folded next time. It moves counts, never drops them:
 * a backend started since the fold read {@code pg_stat_activity} under a dead backend's number
 * either holds its row (skipped) or finds it moved and starts a new one. Folds of several nodes
 * write backend 0's rows in one order, so they wait on each other but never deadlock.
 */
final class PendingCountFold implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PendingCountFold.class);
    private static final long EVERY_SECONDS = 300;

    static final String FOLD = "WITH gone AS (DELETE FROM pending_count WHERE (spec_id, priority, backend) IN ("
            + "SELECT spec_id, priority, backend FROM pending_count WHERE backend <> 0"
            + " AND backend NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL) FOR UPDATE SKIP LOCKED)"
            + " RETURNING spec_id, priority, n)"
            + " INSERT INTO pending_count (spec_id, priority, backend, n)"
            + " SELECT spec_id, priority, 0, SUM(n) FROM gone GROUP BY spec_id, priority ORDER BY spec_id, priority"
            + " ON CONFLICT (spec_id, priority, backend) DO UPDATE SET n = pending_count.n + EXCLUDED.n";

    private final StoreContext context;
    private final ScheduledExecutorService timer;

    private PendingCountFold(StoreContext context) {
        this.context = context;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "baton-pending-count-fold");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Folds now, before the store is handed out (a restarted server's old connections are gone),
     * and then every five minutes.
     */
    static PendingCountFold start(StoreContext context) {
        PendingCountFold fold = new PendingCountFold(context);
        fold.foldQuietly();
        fold.timer.scheduleWithFixedDelay(fold::foldQuietly, EVERY_SECONDS, EVERY_SECONDS, TimeUnit.SECONDS);
        return fold;
    }

    /** Folds the rows of backends that ended; returns how many (spec, priority) counts received some. */
    int fold() {
        return context.write(h -> h.createUpdate(FOLD).execute());
    }

    private void foldQuietly() {
        try {
            fold();
        } catch (RuntimeException e) {
            LOG.warn("folding the pending counts of ended connections failed; the next fold retries: {}", e.toString());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

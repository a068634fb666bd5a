package dev.baton.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;

/**
 * The store's one write path (issue 13, docs/decisions/0004-group-commit.md): concurrent write
 * transactions are gathered into one database transaction, run one after the other in arrival
 * order, and committed together. Each caller is completed only after that commit (nothing is
 * acknowledged before it is durable), and a caller blocks while the queue is full (back-pressure).
 *
 * <p>Each body still does its own compare-and-set and classification; inside the batch it sees
 * the effects of the bodies before it, exactly as if the transactions had run serially in that
 * order, which is what the dialects' locks produced before. If any body throws, or the batch
 * fails, the batch is rolled back as a whole and every body of it is run again alone in its own
 * transaction, in the same order: a caller's exception is always its own, and bodies are already
 * written to be re-run (PostgreSQL retries a transaction whose body failed on a dead connection).
 */
final class GroupCommit implements AutoCloseable {
    /** How one transaction is entered in the dialect (its write lock, retries, BEGIN IMMEDIATE). */
    interface Transactions {
        <T> T inTransaction(HandleCallback<T, RuntimeException> work);
    }

    private static final class Pending<T> {
        final HandleCallback<T, RuntimeException> work;
        final CompletableFuture<T> done = new CompletableFuture<>();
        T result;

        Pending(HandleCallback<T, RuntimeException> work) {
            this.work = work;
        }

        void runIn(Handle h) {
            result = work.withHandle(h);
        }
    }

    private final Transactions transactions;
    private final int maxBatch;
    private final BlockingQueue<Pending<?>> queue;
    private final List<Thread> committers = new ArrayList<>();
    /** The batch a committer thread is running, so a write from inside a body joins it. */
    private final ThreadLocal<Handle> inBatch = new ThreadLocal<>();

    private volatile boolean closed;

    /**
     * @param committers threads committing batches concurrently (1 on SQLite: one writer at a time)
     * @param maxBatch   most transactions in one commit
     * @param capacity   queued transactions before callers block
     */
    GroupCommit(String name, Transactions transactions, int committers, int maxBatch, int capacity) {
        this.transactions = transactions;
        this.maxBatch = maxBatch;
        this.queue = new ArrayBlockingQueue<>(capacity);
        for (int i = 0; i < committers; i++) {
            Thread t = Thread.ofPlatform().daemon().name(name + "-" + i).unstarted(this::commitLoop);
            this.committers.add(t);
            t.start();
        }
    }

    /** Runs {@code work} in a write transaction and returns once that transaction is committed. */
    <T> T write(HandleCallback<T, RuntimeException> work) {
        Handle joined = inBatch.get();
        if (joined != null) return work.withHandle(joined);
        if (closed) throw new IllegalStateException("the store is closed");
        Pending<T> p = new Pending<>(work);
        // Uninterruptible, like the writer lock and pooled connection it replaces: a thread
        // interrupted during shutdown still gets its final transition written.
        boolean interrupted = false;
        while (true) {
            try {
                queue.put(p);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        try {
            return p.done.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) throw r;
            if (cause instanceof Error err) throw err;
            throw e;
        }
    }

    /** Transactions waiting for a committer (for tests and metrics). */
    int queued() {
        return queue.size();
    }

    private void commitLoop() {
        List<Pending<?>> batch = new ArrayList<>(maxBatch);
        while (!closed || !queue.isEmpty()) {
            try {
                Pending<?> first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) continue;
                batch.add(first);
                queue.drainTo(batch, maxBatch - 1);
                commit(batch);
            } catch (InterruptedException e) {
                if (closed) break;
            } catch (Throwable e) {
                // commit() completes every caller; anything else is a bug that must not stop the writer
                for (Pending<?> p : batch) p.done.completeExceptionally(e);
            } finally {
                batch.clear();
            }
        }
        for (Pending<?> p; (p = queue.poll()) != null; )
            p.done.completeExceptionally(new IllegalStateException("the store is closed"));
    }

    private void commit(List<Pending<?>> batch) {
        if (batch.size() == 1) {
            runAlone(batch.getFirst());
            return;
        }
        boolean committed;
        try {
            transactions.inTransaction(h -> {
                inBatch.set(h);
                try {
                    for (Pending<?> p : batch) p.runIn(h);
                } finally {
                    inBatch.remove();
                }
                return null;
            });
            committed = true;
        } catch (RuntimeException e) {
            committed = false;
        }
        if (committed) {
            for (Pending<?> p : batch) complete(p);
        } else {
            for (Pending<?> p : batch) runAlone(p);
        }
    }

    private <T> void runAlone(Pending<T> p) {
        try {
            p.done.complete(transactions.inTransaction(h -> {
                inBatch.set(h);
                try {
                    return p.work.withHandle(h);
                } finally {
                    inBatch.remove();
                }
            }));
        } catch (Throwable e) {
            p.done.completeExceptionally(e);
        }
    }

    private static <T> void complete(Pending<T> p) {
        p.done.complete(p.result);
    }

    @Override
    public void close() {
        closed = true;
        for (Thread t : committers) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

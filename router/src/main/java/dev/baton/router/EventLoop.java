package dev.baton.router;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that enters {@link RouterCore}: socket listeners, the ticker and HTTP handlers
 * only post tasks here, so the core needs no locks and sees events in the order they came.
 */
final class EventLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventLoop.class);
    private final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean running = true;

    EventLoop() {
        thread = Thread.ofPlatform().name("baton-router").daemon().start(this::loop);
    }

    void post(Runnable task) {
        tasks.add(task);
    }

    /** Runs {@code task} on the loop and waits for its result (status pages, metrics). */
    <T> T call(Supplier<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        post(() -> {
            try {
                result.complete(task.get());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the router's event loop did not answer", e);
        }
    }

    private void loop() {
        while (running) {
            try {
                Runnable task = tasks.poll(200, TimeUnit.MILLISECONDS);
                if (task != null) task.run();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.error("router event failed", e);
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}

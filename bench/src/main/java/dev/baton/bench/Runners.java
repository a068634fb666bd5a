package dev.baton.bench;

import java.net.http.HttpClient;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/** The WebSocket client side of the simulated runners: one HttpClient on its own named threads. */
final class Runners implements AutoCloseable {
    static final String THREAD_PREFIX = "bench-runner-";

    private final ExecutorService executor;
    private final HttpClient client;

    Runners(int threads) {
        AtomicInteger n = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, THREAD_PREFIX + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.client = HttpClient.newBuilder().executor(executor).build();
    }

    HttpClient client() {
        return client;
    }

    @Override
    public void close() {
        client.shutdownNow();
        executor.shutdownNow();
    }
}

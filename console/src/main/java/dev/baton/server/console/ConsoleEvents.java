package dev.baton.server.console;

import dev.baton.server.events.Changes;
import dev.baton.server.http.EventStreams;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /console/events}: the console's Server-Sent Events stream, fed by dispatch's
 * {@link Changes}. Each change becomes an event name the pages listen for ({@code runners},
 * {@code jobs}, {@code job-<uuid>}); an event carries no state, the page fetches its part again.
 * Names raised while a write is under way are merged, so a burst of changes costs one refresh.
 * The stream starts with {@code retry:} so a browser that loses it reconnects by itself (htmx's
 * SSE extension also backs off and reconnects); a comment every {@link #KEEP_ALIVE} keeps proxies
 * from closing an idle stream and notices a gone client.
 */
public final class ConsoleEvents implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleEvents.class);
    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);
    static final int RETRY_MILLIS = 1000;

    private final Changes changes;
    private volatile boolean closed;

    public ConsoleEvents(Changes changes) {
        this.changes = changes;
    }

    /** One client's pending event names, merged until written. */
    private static final class Pending {
        final ReentrantLock lock = new ReentrantLock();
        final Condition arrived = lock.newCondition();
        final Set<String> names = new LinkedHashSet<>();

        void add(String... more) {
            lock.lock();
            try {
                names.addAll(Set.of(more));
                arrived.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Waits up to {@code wait} for names and takes them all (empty on timeout). */
        Set<String> take(Duration wait) throws InterruptedException {
            lock.lock();
            try {
                long nanos = wait.toNanos();
                while (names.isEmpty() && nanos > 0) nanos = arrived.awaitNanos(nanos);
                Set<String> taken = new LinkedHashSet<>(names);
                names.clear();
                return taken;
            } finally {
                lock.unlock();
            }
        }
    }

    void stream(Context ctx) throws IOException, InterruptedException {
        // Subscribed before the client sees the stream open, so no change after "open" is missed.
        Pending pending = new Pending();
        Changes.Subscription subscription = changes.subscribe(change -> {
            switch (change) {
                case Changes.RunnersChanged r -> pending.add("runners");
                case Changes.JobChanged j -> pending.add("jobs", "job-" + j.job());
            }
        });
        try {
            OutputStream out = EventStreams.open(ctx);
            out.write(("retry: " + RETRY_MILLIS + "\n: console events\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            while (!closed) {
                Set<String> names = pending.take(KEEP_ALIVE);
                if (closed) return;
                StringBuilder events = new StringBuilder();
                if (names.isEmpty()) events.append(": keep-alive\n\n");
                for (String name : names) events.append("event: ").append(name).append("\ndata: ").append(name).append("\n\n");
                out.write(events.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException e) {
            LOG.debug("console event client went away: {}", e.toString());
        } finally {
            subscription.close();
        }
    }

    /** Server stop: every stream ends (browsers reconnect to the next server), so the stop is not held up. */
    @Override
    public void close() {
        closed = true;
        changes.runners(); // wakes every waiting stream, which then sees closed
    }
}

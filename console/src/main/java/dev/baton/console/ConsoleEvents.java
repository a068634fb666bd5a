package dev.baton.console;

import dev.baton.core.events.Changes;
import dev.baton.protocol.id.JobUuid;
import dev.baton.store.Store;
import dev.baton.web.auth.Principal;
import dev.baton.web.http.EventStreams;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /console/events}: the console's Server-Sent Events stream, fed by dispatch's
 * {@link Changes}. Each change becomes an event name the pages listen for ({@code runners},
 * {@code jobs}, {@code job-<uuid>}); an event carries no state, the page fetches its part again.
 * Names raised while a write is under way are merged, so a burst of changes costs one refresh.
 * A stream carries only what its viewer may read: a job is announced only to viewers of its
 * project ({@link ReadableJobs}), on the viewer's memberships read again for each burst; runners
 * only to the admin, whose pages alone show them; and the stream ends when the viewer's token no
 * longer signs in (revoked, expired).
 * The stream starts with {@code retry:} so a browser that loses it reconnects by itself (htmx's
 * SSE extension also backs off and reconnects); a comment every {@link #KEEP_ALIVE} keeps proxies
 * from closing an idle stream and notices a gone client.
 */
public final class ConsoleEvents implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleEvents.class);
    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);
    static final int RETRY_MILLIS = 1000;

    private final Changes changes;
    private final Store store;
    private volatile boolean closed;

    public ConsoleEvents(Changes changes, Store store) {
        this.changes = changes;
        this.store = store;
    }

    /** One client's pending changes, merged until written: whether runners changed, and which jobs. */
    private static final class Pending {
        final ReentrantLock lock = new ReentrantLock();
        final Condition arrived = lock.newCondition();
        boolean runners;
        final Set<JobUuid> jobs = new LinkedHashSet<>();

        void add(Changes.Change change) {
            lock.lock();
            try {
                switch (change) {
                    case Changes.RunnersChanged r -> runners = true;
                    case Changes.JobChanged j -> jobs.add(j.job());
                }
                arrived.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Waits up to {@code wait} for changes and takes them all (empty on timeout). */
        Taken take(Duration wait) throws InterruptedException {
            lock.lock();
            try {
                long nanos = wait.toNanos();
                while (!runners && jobs.isEmpty() && nanos > 0) nanos = arrived.awaitNanos(nanos);
                Taken taken = new Taken(runners, List.copyOf(jobs));
                runners = false;
                jobs.clear();
                return taken;
            } finally {
                lock.unlock();
            }
        }
    }

    private record Taken(boolean runners, List<JobUuid> jobs) {}

    /**
     * Streams the changes {@code viewer} may read. {@code viewer} signs the request's viewer in again
     * (empty once the token is revoked or expired); it is asked once per burst that has jobs in it.
     */
    void stream(Context ctx, Supplier<Optional<Principal>> viewer) throws IOException, InterruptedException {
        Optional<Principal> first = viewer.get();
        if (first.isEmpty()) {
            ctx.status(401).result("sign in first");
            return;
        }
        ReadableJobs readable = new ReadableJobs(store);
        // Subscribed before the client sees the stream open, so no change after "open" is missed.
        Pending pending = new Pending();
        Changes.Subscription subscription =
                changes.subscribe(pending::add); // only hands on: the stream's thread filters
        try {
            OutputStream out = EventStreams.open(ctx);
            out.write(("retry: " + RETRY_MILLIS + "\n: console events\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            Principal principal = first.get();
            long lastWrite = System.nanoTime();
            while (!closed) {
                long quiet = System.nanoTime() - lastWrite;
                Taken taken = pending.take(Duration.ofNanos(Math.max(0, KEEP_ALIVE.toNanos() - quiet)));
                if (closed) return;
                Set<String> names = new LinkedHashSet<>();
                if (taken.runners() && principal instanceof Principal.Admin)
                    names.add("runners"); // only the admin's pages show runners
                if (!taken.jobs().isEmpty() && !(principal instanceof Principal.Admin)) {
                    // Memberships as they are now: a viewer removed from a project stops hearing of its jobs.
                    Optional<Principal> now = viewer.get();
                    if (now.isEmpty()) return; // signed out by revocation or expiry: the browser's reconnect gets 401
                    principal = now.get();
                }
                for (JobUuid job : taken.jobs()) {
                    if (!readable.mayRead(principal, job)) continue;
                    names.add("jobs");
                    names.add("job-" + job);
                }
                // Nothing this viewer may hear of: nothing is written, not even a comment, so the
                // stream's timing does not tell of other projects' activity either.
                boolean keepAliveDue = System.nanoTime() - lastWrite >= KEEP_ALIVE.toNanos();
                if (names.isEmpty() && !keepAliveDue) continue;
                StringBuilder events = new StringBuilder();
                if (names.isEmpty()) events.append(": keep-alive\n\n");
                for (String name : names)
                    events.append("event: ")
                            .append(name)
                            .append("\ndata: ")
                            .append(name)
                            .append("\n\n");
                out.write(events.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
                lastWrite = System.nanoTime();
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

package dev.baton.dispatch;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's timers, per key, measured on an injected {@link Clock}: the poll timeout and the
 * read timer (which concern a socket only this node has), back-off wake-ups, and wake-ups of the
 * store's deadline sweep at the exact time a job deadline falls due (the deadlines themselves are
 * columns in the store, acted on by whichever node sweeps first; see DeadlineSweep).
 * Setting a key again replaces its deadline.
 *
 * <p>{@link #runDue()} fires everything whose time has come on the clock; a background loop
 * calls it a few times a second in production, and tests advance a test clock and call it
 * directly, so a 90 s timeout is tested in milliseconds. Actions run outside the lock and must
 * tolerate running late (they re-read state before acting).
 */
public final class Deadlines implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Deadlines.class);
    private static final long LOOP_MILLIS = 20;

    private record Entry(String key, Instant at, long generation, Runnable action) {}

    private final Clock clock;
    private final PriorityQueue<Entry> queue = new PriorityQueue<>((a, b) -> a.at.compareTo(b.at));
    private final Map<String, Long> current = new HashMap<>();
    private long generation;
    private volatile Thread loop;

    public Deadlines(Clock clock) {
        this.clock = clock;
    }

    /** Schedules {@code action} at {@code at}, replacing any deadline of the same key. */
    public synchronized void set(String key, Instant at, Runnable action) {
        long gen = ++generation;
        current.put(key, gen);
        queue.add(new Entry(key, at, gen, action));
    }

    public synchronized void clear(String key) {
        current.remove(key);
    }

    /** Fires every deadline that is due on the clock; returns how many fired. */
    public int runDue() {
        List<Entry> due = takeDue(clock.instant());
        for (Entry e : due) {
            try {
                e.action.run();
            } catch (RuntimeException ex) {
                LOG.error("deadline {} failed", e.key, ex);
            }
        }
        return due.size();
    }

    private synchronized List<Entry> takeDue(Instant now) {
        List<Entry> due = new ArrayList<>();
        while (!queue.isEmpty() && !queue.peek().at.isAfter(now)) {
            Entry e = queue.poll();
            Long gen = current.get(e.key);
            if (gen != null && gen == e.generation) {
                current.remove(e.key);
                due.add(e);
            }
        }
        // Drop superseded entries lazily so the queue does not grow with replaced deadlines.
        if (queue.size() > 4 * current.size() + 1024)
            queue.removeIf(e -> !Long.valueOf(e.generation).equals(current.get(e.key)));
        return due;
    }

    /** Starts the background loop that fires deadlines as the clock passes them. */
    public void start() {
        loop = Thread.ofVirtual().name("baton-deadlines").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                runDue();
                try {
                    Thread.sleep(LOOP_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    @Override
    public void close() {
        Thread t = loop;
        if (t != null) t.interrupt();
    }
}

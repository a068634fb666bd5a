package dev.baton.core.events;

import dev.baton.protocol.id.JobUuid;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Coarse "something changed" signals for watchers (the console's live pages), raised at the same
 * points where dispatch hears of a change: a runner ready or gone, a job submitted, claimed,
 * started, ended, processed or canceled. A signal carries no state: a watcher reads the store
 * again, so a lost or merged signal costs a refresh, never a wrong page.
 */
public final class Changes {
    private static final Logger LOG = LoggerFactory.getLogger(Changes.class);

    /** What changed. */
    public sealed interface Change {}

    /** The set of runners or what one of them does (connected, ready, busy, gone). */
    public record RunnersChanged() implements Change {}

    /** One job's state, queue place or attempts. */
    public record JobChanged(JobUuid job) implements Change {}

    private static final RunnersChanged RUNNERS = new RunnersChanged();

    private final List<Consumer<Change>> listeners = new CopyOnWriteArrayList<>();

    /** Ends a listener's subscription. */
    public interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /** Adds a listener; it runs on the thread that raised the change, so it must only hand it on. */
    public Subscription subscribe(Consumer<Change> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** True while anyone listens (a console is open on this node). */
    public boolean hasListeners() {
        return !listeners.isEmpty();
    }

    public void runners() {
        raise(RUNNERS);
    }

    public void job(JobUuid job) {
        raise(new JobChanged(job));
    }

    private void raise(Change change) {
        for (Consumer<Change> l : listeners) {
            try {
                l.accept(change);
            } catch (RuntimeException e) {
                // A watcher's fault must never reach the dispatcher that raised the change.
                LOG.warn("change listener failed: {}", e.toString());
            }
        }
    }
}

package dev.baton.dispatch;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who the {@link Dispatcher} tells the spec of every job it hears of as pending (the NATS
 * transport's lease pump). Told on the caller's thread before the dispatcher's own runners are
 * served, so a listener only hands the news on, and one that fails is logged and passed over: it
 * must not keep the others or the pump from the news.
 */
final class PendingListeners {
    private static final Logger LOG = LoggerFactory.getLogger(PendingListeners.class);

    /** Copy-on-write: told on every pending job, added to or removed from rarely. */
    private final List<LongConsumer> listeners = new CopyOnWriteArrayList<>();

    /** Adds {@code listener}; returns what removes it. */
    Runnable add(LongConsumer listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    void tell(long specId) {
        for (var l : listeners) {
            try {
                l.accept(specId);
            } catch (RuntimeException e) {
                LOG.warn("pending listener failed: {}", e.toString());
            }
        }
    }
}

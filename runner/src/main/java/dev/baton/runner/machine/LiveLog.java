package dev.baton.runner.machine;

import dev.baton.protocol.message.LogStream;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Streaming state of one held job: the next log seq (per attempt, from 1), the rate budget as a
 * token bucket on the machine's clock, and per stream the bytes dropped since the last marker.
 * Text of a stream is never sent while a drop of that stream is unannounced, so the server can
 * count where each entry lies in the stream.
 */
final class LiveLog {
    record Key(int iteration, LogStream stream) {}

    private long nextSeq = 1;
    private double tokens;
    private Instant refilledAt;
    private final Map<Key, Long> drops = new LinkedHashMap<>();

    long takeSeq() {
        return nextSeq++;
    }

    void refill(Instant now, LogBudget budget) {
        if (refilledAt == null) {
            tokens = budget.burstBytes();
        } else {
            long nanos = Math.max(0, Duration.between(refilledAt, now).toNanos());
            tokens = Math.min(budget.burstBytes(), tokens + budget.rateBytesPerSecond() * (nanos / 1e9));
        }
        if (refilledAt == null || now.isAfter(refilledAt)) refilledAt = now;
    }

    boolean take(int bytes) {
        if (tokens < bytes) return false;
        tokens -= bytes;
        return true;
    }

    boolean isFull(LogBudget budget) {
        return tokens >= budget.burstBytes();
    }

    void drop(Key key, long bytes) {
        drops.merge(key, bytes, Long::sum);
    }

    boolean hasDrop(Key key) {
        return drops.containsKey(key);
    }

    Long takeDrop(Key key) {
        return drops.remove(key);
    }

    Map<Key, Long> drops() {
        return drops;
    }
}

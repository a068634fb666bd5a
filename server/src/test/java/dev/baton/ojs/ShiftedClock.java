package dev.baton.ojs;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The system clock plus an offset the conformance harness moves forward: a case's "wait 65 s for
 * the cron to fire" moves the server's time by 65 s instead of sleeping. The clock keeps ticking
 * in between (ids and enqueue order stay monotonic), and only moves forward.
 */
final class ShiftedClock extends Clock {
    private final AtomicLong offsetMillis = new AtomicLong();

    void advance(Duration by) {
        offsetMillis.addAndGet(by.toMillis());
    }

    @Override
    public Instant instant() {
        return Instant.now().plusMillis(offsetMillis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}

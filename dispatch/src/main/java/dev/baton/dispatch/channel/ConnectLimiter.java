package dev.baton.dispatch.channel;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How often one runner may open its channel (issue 41): a token bucket per runner (so per key; a
 * rotated key keeps the runner's bucket), {@code burst} connects at once, one more earned every
 * {@code 60 s / perMinute}, on the injected clock. Each connect is one connect/{@code ready}
 * cycle: within a connection a {@code ready} is already bounded (a repeated one is ignored, an
 * answered one waits its poll timeout), so churn can only come from reconnecting. In memory, per
 * node: a runner spreading its reconnects over nodes gets each node's allowance, which still
 * bounds it. Once many runners have buckets, those that have filled up again are dropped.
 */
public final class ConnectLimiter {
    /** The wire reason of the refusal and the label of {@code baton_runner_connects_refused_total}. */
    public static final String REASON = "connect_rate";

    private record Bucket(double tokens, Instant at) {}

    private final int perMinute;
    private final int burst;
    private final Clock clock;
    private final Map<Long, Bucket> buckets = new HashMap<>();

    /** @param perMinute connects earned back a minute; 0 means no limit */
    public ConnectLimiter(int perMinute, int burst, Clock clock) {
        this.perMinute = perMinute;
        this.burst = burst;
        this.clock = clock;
    }

    /** Takes one connect for {@code runnerId}: empty when allowed, else how long until the next one is. */
    public synchronized Optional<Duration> take(long runnerId) {
        if (perMinute == 0) return Optional.empty();
        Instant now = clock.instant();
        Bucket b = buckets.get(runnerId);
        double tokens = b == null ? burst : refill(b, now);
        if (tokens < 1) {
            buckets.put(runnerId, new Bucket(tokens, now));
            long millis = (long) Math.ceil((1 - tokens) * 60_000.0 / perMinute);
            return Optional.of(Duration.ofMillis(millis));
        }
        buckets.put(runnerId, new Bucket(tokens - 1, now));
        if (buckets.size() > 10_000) buckets.values().removeIf(x -> refill(x, now) >= burst);
        return Optional.empty();
    }

    private double refill(Bucket b, Instant now) {
        // A clock that went back earns nothing rather than a negative amount.
        long elapsed = Math.max(0, Duration.between(b.at(), now).toMillis());
        return Math.min(burst, b.tokens() + elapsed * perMinute / 60_000.0);
    }
}

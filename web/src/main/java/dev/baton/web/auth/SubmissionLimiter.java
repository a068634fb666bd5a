package dev.baton.web.auth;

import dev.baton.web.http.ApiException;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Runs submitted per API token: a token bucket of {@code perMinute} that refills continuously, kept
 * in this node's memory (each node limits on its own). The admin token is not limited; 0 turns the
 * limit off. A refusal is {@code 429 rate_limited} with {@code Retry-After} in whole seconds.
 */
public final class SubmissionLimiter {
    private final int perMinute;
    private final Clock clock;
    private final ConcurrentMap<Long, Bucket> buckets = new ConcurrentHashMap<>();

    private static final class Bucket {
        double tokens;
        long updatedNanos;

        Bucket(double tokens, long updatedNanos) {
            this.tokens = tokens;
            this.updatedNanos = updatedNanos;
        }
    }

    public SubmissionLimiter(int perMinute, Clock clock) {
        this.perMinute = perMinute;
        this.clock = clock;
    }

    /** Takes one submission for {@code principal}, or sets Retry-After on {@code ctx} and throws the 429. */
    public void acquire(Principal principal, Context ctx) {
        if (perMinute <= 0 || !(principal instanceof Principal.TokenHolder holder)) return;
        long now = clock.millis() * 1_000_000L;
        double perNano = perMinute / (double) Duration.ofMinutes(1).toNanos();
        Bucket bucket = buckets.computeIfAbsent(holder.token().id(), id -> new Bucket(perMinute, now));
        synchronized (bucket) {
            bucket.tokens = Math.min(perMinute, bucket.tokens + Math.max(0, now - bucket.updatedNanos) * perNano);
            bucket.updatedNanos = now;
            if (bucket.tokens >= 1) {
                bucket.tokens -= 1;
                return;
            }
            long waitSeconds = (long) Math.ceil((1 - bucket.tokens) / perNano / 1e9);
            long retryAfter = Math.max(1, waitSeconds);
            ctx.header("Retry-After", Long.toString(retryAfter));
            throw new ApiException(
                    429,
                    "rate_limited",
                    "this token may submit " + perMinute + " runs a minute"
                            + " (token_submissions_per_minute); retry in " + retryAfter + " s");
        }
    }
}

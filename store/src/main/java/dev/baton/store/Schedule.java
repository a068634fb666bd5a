package dev.baton.store;

import java.time.Instant;

/**
 * A schedule (docs/api.md "Schedules"): the {@code POST /v0/run} body {@code run} (JSON) submitted
 * on {@code cron} in {@code timezone}, or once at {@code nextFire} when {@code cron} is null.
 * {@code nextFire} is null once a one-off has fired. {@code version} is what a change expects.
 */
public record Schedule(
        String uuid,
        String name,
        String cron,
        String timezone,
        String run,
        boolean paused,
        Instant nextFire,
        long version,
        Instant lastFired,
        String lastReport,
        String lastError,
        Instant created) {

    public Schedule withVersion(long v) {
        return new Schedule(
                uuid, name, cron, timezone, run, paused, nextFire, v, lastFired, lastReport, lastError, created);
    }
}
